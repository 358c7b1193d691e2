// The command line: `npm run host`, `dev`, `check`, `new`, `logs` and `secrets`. Picks the command
// (cli/) and reports a failure as one line. The only entry that reads argv or calls process.exit.

import { HostError } from './common/errors.ts';
import { fail } from './cli/usage.ts';

// Each command's modules load only when it runs: `secrets list` need not load the sandbox and esbuild.
const COMMANDS = new Map<string, (args: string[]) => Promise<void>>([
  ['host', async (args) => (await import('./cli/host-command.ts')).runHost(args)],
  ['dev', async (args) => (await import('./cli/dev-command.ts')).runDev(args)],
  ['check', async (args) => (await import('./cli/check-command.ts')).runCheck(args)],
  ['logs', async (args) => (await import('./cli/logs-command.ts')).runLogs(args)],
  ['new', async (args) => (await import('./cli/new-command.ts')).runNew(args)],
  ['secrets', async (args) => (await import('./cli/secrets-command.ts')).runSecrets(args)],
]);

const [command, ...rest] = process.argv.slice(2);
const run = COMMANDS.get(command ?? '');
if (run === undefined) fail(`unknown command "${command ?? ''}"`);
run(rest).catch((error: unknown) => {
  // An operator's mistake (port in use, unreadable folder, bad option) is one line with its fix;
  // only an error the host did not foresee, which is a host bug, gets its stack trace.
  const message = error instanceof HostError
    ? `error: ${error.message}`
    : `unexpected error (a host bug; please report it with this trace):\n${(error as Error).stack ?? String(error)}`;
  process.stderr.write(`${message}\n`);
  process.exit(1);
});

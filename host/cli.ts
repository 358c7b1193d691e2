// The command line: `npm run host`, `dev`, `check`, `new` and `logs`. Picks the command (cli/) and reports a
// failure as one line. The only entry that reads argv or calls process.exit.

import { HostError } from './common/errors.ts';
import { runCheck } from './cli/check-command.ts';
import { runDev } from './cli/dev-command.ts';
import { runHost } from './cli/host-command.ts';
import { runLogs } from './cli/logs-command.ts';
import { runNew } from './cli/new-command.ts';
import { fail } from './cli/usage.ts';

const COMMANDS = new Map<string, (args: string[]) => Promise<void>>([
  ['host', runHost],
  ['dev', runDev],
  ['check', runCheck],
  ['logs', runLogs],
  ['new', runNew],
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

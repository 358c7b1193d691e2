// The command line: `npm run host` and `npm run check`. Picks the command (cli/) and reports a
// failure as one line. The only entry that reads argv or calls process.exit.

import { HostError } from './common/errors.ts';
import { runCheck } from './cli/check-command.ts';
import { runHost } from './cli/host-command.ts';
import { fail } from './cli/usage.ts';

const COMMANDS = new Map<string, (args: string[]) => Promise<void>>([
  ['host', runHost],
  ['check', runCheck],
]);

const [command, ...rest] = process.argv.slice(2);
const run = COMMANDS.get(command ?? '');
if (run === undefined) fail(`unknown command "${command ?? ''}"`);
run(rest).catch((error: unknown) => {
  const message = error instanceof HostError ? `${error.code}: ${error.message}` : (error as Error).stack ?? String(error);
  process.stderr.write(`${message}\n`);
  process.exit(1);
});

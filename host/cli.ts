// The command line: `integration-host <command>` installed, `npm run <command>` in a clone. Parses
// with the grammar of cli/program.ts and reports a failure as one line. The only entry that reads
// argv or calls process.exit on an error.

import { CommanderError } from 'commander';
import { HostError } from './common/errors.ts';
import { buildProgram } from './cli/program.ts';

const program = buildProgram();
// `npm run host -- …` passes the command first; the installed tool does too.
program.parseAsync(process.argv.slice(2), { from: 'user' }).catch((error: unknown) => {
  if (error instanceof CommanderError) {
    // commander has printed the help, the version or the error with its suggestion: bad input is 2.
    process.exit(error.exitCode === 0 ? 0 : 2);
  }
  // An operator's mistake (port in use, unreadable folder, bad option) is one line with its fix;
  // only an error the host did not foresee, which is a host bug, gets its stack trace.
  const message =
    error instanceof HostError
      ? `error: ${error.message}`
      : `unexpected error (a host bug; please report it with this trace):\n${(error as Error).stack ?? String(error)}`;
  process.stderr.write(`${message}\n`);
  process.exit(1);
});

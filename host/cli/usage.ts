// The one way a command fails on bad input that its grammar (program.ts) cannot express: the
// message, where the usage is, exit code 2. Owns wording only; it never parses.

import { commandLine } from '../common/invocation.ts';

export function fail(message: string, code = 2): never {
  process.stderr.write(`error: ${message}\n(${commandLine('<command>', '--help')} shows the usage)\n`);
  process.exit(code);
}

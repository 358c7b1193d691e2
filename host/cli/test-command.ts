// `test [files or folders...]`: runs integrations' tests with node's test runner in a Node process
// that can load the host (this Node, --no-node-snapshot, the installed package's loader hook).
// Chooses what to run and passes the runner's exit status through; never interprets results.

import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { importFlags } from '../common/import-flags.ts';
import { commandLine } from '../common/invocation.ts';
import { DEFAULT_INTEGRATIONS_DIR } from './defaults.ts';
import { fail } from './usage.ts';

const TEST_FILES = '**/*.test.{ts,mts,js,mjs}';

/** The runner's patterns: a folder stands for the test files under it, a file for itself. */
export function testPatterns(given: string[], cwd = process.cwd()): string[] {
  if (given.length === 0) {
    if (!existsSync(path.join(cwd, DEFAULT_INTEGRATIONS_DIR)))
      fail(
        `no ./${DEFAULT_INTEGRATIONS_DIR} folder here: name the test files or ` +
          `folders, e.g. ${commandLine('test', 'path/to/integration')}`,
      );
    return [`${DEFAULT_INTEGRATIONS_DIR}/*/test/${TEST_FILES}`];
  }
  return given.map((entry) => {
    const stats = statSync(path.resolve(cwd, entry), { throwIfNoEntry: false });
    if (stats === undefined) fail(`${entry} does not exist`);
    return stats.isDirectory() ? `${entry.replace(/\/+$/, '')}/${TEST_FILES}` : entry;
  });
}

export async function runTests(given: string[]): Promise<void> {
  const args = [
    '--no-node-snapshot',
    '--disable-warning=ExperimentalWarning',
    ...importFlags(process.execArgv),
    '--test',
    ...testPatterns(given),
  ];
  const child = spawn(process.execPath, args, { stdio: 'inherit' });
  // Ctrl-C reaches the runner too; a signal sent to this process alone is passed on.
  process.on('SIGINT', () => undefined);
  process.on('SIGTERM', () => child.kill('SIGTERM'));
  const code = await new Promise<number>((resolve) =>
    child.on('exit', (exit, signal) => resolve(exit ?? (signal ? 1 : 0))),
  );
  process.exit(code);
}

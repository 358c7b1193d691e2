// An integration's development values (`.dev.vars` in its folder, `NAME=value` lines): filled in
// for its own secrets' variables when the environment leaves them unset, so a scaffolded
// integration runs from a clean shell. Only variables of the integration's own namespace; an
// exported variable always wins; values never appear in a message.

import path from 'node:path';
import type { Issue } from './validate.ts';
import { namespaceProblem } from './secret-namespace.ts';
import { readRegularFile, UnreadableFileError } from './read-file.ts';

export const DEV_VARS_FILE = '.dev.vars';
const MAX_DEV_VARS_BYTES = 64 * 1024;
const LINE = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/;

export interface DevVars {
  /** Variables to fill in (own namespace only). */
  values: Record<string, string>;
  /** Problems with the file, each naming its line; the variables concerned are ignored. */
  warnings: Issue[];
}

/** Parses `.dev.vars` text: `NAME=value`, `# comments`, blank lines, optional quotes around the value. */
export function parseDevVars(text: string, owner: string): DevVars {
  const result: DevVars = { values: {}, warnings: [] };
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const match = LINE.exec(line);
    const where = `line ${index + 1}`;
    if (match === null) {
      result.warnings.push({ pointer: '', message: `${where}: expected NAME=value; ignored` });
      return;
    }
    const [, name, rawValue] = match;
    const outside = namespaceProblem(name, owner);
    if (outside !== null) {
      result.warnings.push({
        pointer: '',
        message: `${where}: ${name} is not this integration's to set (${outside}); ignored`,
      });
      return;
    }
    const quoted = /^(["'])(.*)\1$/.exec(rawValue);
    result.values[name] = quoted ? quoted[2] : rawValue;
  });
  return result;
}

/** The folder's development values, or none when it has no `.dev.vars`. */
export async function readDevVars(dir: string, owner: string): Promise<DevVars> {
  const file = path.join(dir, DEV_VARS_FILE);
  let text: string;
  try {
    // Never blocks on a FIFO or a device planted under the name, never reads past the cap.
    text = (await readRegularFile(file, MAX_DEV_VARS_BYTES)).toString('utf8');
  } catch (error) {
    if (error instanceof UnreadableFileError)
      return { values: {}, warnings: [{ pointer: '', message: `${error.message}; ignored` }] };
    return { values: {}, warnings: [] };
  }
  return parseDevVars(text, owner);
}

/** `env` with the development values filled in where it has nothing (unset or empty); which ones were. */
export function withDevVars(
  env: Record<string, string | undefined>,
  devVars: DevVars,
): { env: Record<string, string | undefined>; filled: string[] } {
  const filled = Object.keys(devVars.values).filter((name) => env[name] === undefined || env[name] === '');
  if (filled.length === 0) return { env, filled };
  return { env: { ...env, ...Object.fromEntries(filled.map((name) => [name, devVars.values[name]])) }, filled };
}

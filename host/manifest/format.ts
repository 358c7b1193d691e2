// Prints manifest problems the way `npm run check`, startup and the dev loop show them:
// `file: /pointer: message`, or `file:line:col: error: message` and a code frame for a problem with
// a place in a file. Formatting only: never decides what is a problem, never adds values the
// problem did not carry.

import path from 'node:path';
import { codeFrame, formatLocated } from '../common/code-frame.ts';
import type { ManifestProblem } from './types.ts';

export type Severity = 'error' | 'warning';

function headline(p: ManifestProblem, severity: Severity): string {
  if (p.at !== undefined) return formatLocated(p.file, p.at, severity, p.message);
  // '' is the JSON pointer of the whole document; printed as '/' so the column never looks empty.
  return `${p.file}: ${p.pointer === '' ? '/' : p.pointer}: ${p.message}`;
}

/** An error on one line, without the code frame. */
export function formatProblem(p: ManifestProblem): string {
  return headline(p, 'error');
}

/** A warning on one line, without the code frame (where a column says it is a warning). */
export function formatWarning(p: ManifestProblem): string {
  return headline(p, 'warning');
}

/** The code frame under a problem with a place in a file; nothing for one without. */
export function problemFrame(p: ManifestProblem): string[] {
  return p.at === undefined ? [] : codeFrame(p.at);
}

/** A problem as `npm run check` prints it: its line (a warning's says so) and its code frame. */
export function problemLines(p: ManifestProblem, severity: Severity = 'error'): string[] {
  const line = headline(p, severity);
  return [severity === 'warning' && p.at === undefined ? `${line} (warning)` : line, ...problemFrame(p)];
}

/** `file` as shown in problems: relative to the cwd when the file is below it, else absolute. */
export function displayPath(absolutePath: string, cwd: string = process.cwd()): string {
  const rel = path.relative(cwd, absolutePath);
  if (rel === '' || rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) return absolutePath;
  return rel.split(path.sep).join('/');
}

/**
 * Every problem of a load as `npm run check` prints it, errors then warnings, each with its code
 * frame: `npm run dev` prints the same lines at startup and on reload.
 */
export function reportLines(errors: readonly ManifestProblem[], warnings: readonly ManifestProblem[]): string[] {
  return [
    ...errors.flatMap((problem) => problemLines(problem)),
    ...warnings.flatMap((warning) => problemLines(warning, 'warning')),
  ];
}

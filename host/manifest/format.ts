// Prints manifest problems the way `npm run check` and startup show them: `file: /pointer: message`.
// Formatting only: never decides what is a problem, never adds values the problem did not carry.

import path from 'node:path';
import type { ManifestProblem } from './types.ts';

export function formatProblem(p: ManifestProblem): string {
  // '' is the JSON pointer of the whole document; printed as '/' so the column never looks empty.
  return `${p.file}: ${p.pointer === '' ? '/' : p.pointer}: ${p.message}`;
}

/** `file` as shown in problems: relative to the cwd when the file is below it, else absolute. */
export function displayPath(absolutePath: string, cwd: string = process.cwd()): string {
  const rel = path.relative(cwd, absolutePath);
  if (rel === '' || rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) return absolutePath;
  return rel.split(path.sep).join('/');
}

// Containment checks for the files a manifest names (script, icon, previewImages): each must be a
// regular file inside the integration folder, symlinks included. Read-only: never creates, moves
// or reads the contents of the files it checks.

import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Issue } from './validate.ts';

const SCRIPT_EXTENSIONS = ['.ts', '.tsx', '.js', '.jsx', '.mjs'] as const;

/** True when `child` is `parent` or below it; both must already be absolute and normalized. */
export function isInside(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith(`..${path.sep}`) && rel !== '..' && !path.isAbsolute(rel));
}

/**
 * One issue (or none) for the manifest path `relPath` at `pointer`. `dirReal` is the realpath of
 * the integration folder: comparing realpaths is what catches a symlink that points outside.
 */
export async function checkLocalFile(
  dirReal: string,
  relPath: unknown,
  pointer: string,
  extensions?: readonly string[],
): Promise<Issue | null> {
  if (typeof relPath !== 'string' || relPath === '') return null; // the schema reports it
  const fail = (message: string): Issue => ({ pointer, message });
  // Both separators: a manifest written on Windows must not slip a `..\` past the check.
  if (path.isAbsolute(relPath) || path.win32.isAbsolute(relPath)) {
    return fail(`must be a path relative to the integration folder (got absolute "${relPath}")`);
  }
  const segments = relPath.split(/[\\/]+/);
  let depth = 0;
  for (const segment of segments) {
    depth += segment === '..' ? -1 : segment === '.' || segment === '' ? 0 : 1;
    if (depth < 0) return fail(`"${relPath}" leaves the integration folder`);
  }
  if (extensions && !extensions.includes(path.extname(relPath).toLowerCase())) {
    return fail(`"${relPath}" must be a ${joinOr(extensions)} file`);
  }
  const full = path.join(dirReal, ...segments);
  const info = await stat(full).catch(() => null);
  if (!info) {
    // A dangling symlink also lands here; say "does not exist" either way, it is not usable.
    return fail(`"${relPath}" does not exist in the integration folder`);
  }
  if (!info.isFile()) return fail(`"${relPath}" is not a regular file`);
  const real = await realpath(full);
  if (!isInside(dirReal, real)) {
    return fail(`"${relPath}" resolves outside the integration folder (through a symlink)`);
  }
  return null;
}

/** Checks `script`, `icon` and every `previewImages` item; all problems, in manifest order. */
export async function checkManifestPaths(dirReal: string, doc: Record<string, unknown>): Promise<Issue[]> {
  const checks: Promise<Issue | null>[] = [
    checkLocalFile(dirReal, doc.script, '/script', SCRIPT_EXTENSIONS),
    checkLocalFile(dirReal, doc.icon, '/icon'),
  ];
  if (Array.isArray(doc.previewImages)) {
    doc.previewImages.forEach((image, index) => checks.push(checkLocalFile(dirReal, image, `/previewImages/${index}`)));
  }
  return (await Promise.all(checks)).filter((issue): issue is Issue => issue !== null);
}

function joinOr(words: readonly string[]): string {
  return words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`;
}

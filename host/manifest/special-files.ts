// Finds files the build could block or run away on before esbuild ever sees them: esbuild reads
// package.json files itself while resolving (the integration folder's, its ancestors', and each
// package's in node_modules), and a FIFO there waits forever, a device never ends. Reads nothing;
// lstat/stat only, over a bounded walk.

import { lstat, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { ResolutionRoots } from './resolution-roots.ts';

/** Entries of an integration folder walked before the walk gives up (a folder of source, not a disk). */
const MAX_WALK_ENTRIES = 50_000;

type Kind = 'regular' | 'directory' | 'special' | 'missing';

async function kindOf(file: string, follow: boolean): Promise<Kind> {
  const info = await (follow ? stat(file) : lstat(file)).catch(() => null);
  if (info === null) return 'missing';
  if (info.isFile()) return 'regular';
  if (info.isDirectory()) return 'directory';
  if (!follow && info.isSymbolicLink()) return (await kindOf(file, true)) === 'special' ? 'special' : 'regular';
  return 'special';
}

/**
 * Problems (one per special file) in: every entry of the integration folder (a symlink judged by
 * what it points to; a symlinked folder by its package.json), the package.json of each ancestor
 * up to the workspace root, and the package.json of every package in the node_modules folders
 * resolution may use.
 */
export async function findSpecialFiles(roots: ResolutionRoots): Promise<string[]> {
  const problems: string[] = [];
  const shown = (file: string) => path.relative(roots.integrationDir, file).split(path.sep).join('/') || file;
  const judge = async (file: string) => {
    if ((await kindOf(file, false)) === 'special')
      problems.push(`${shown(file)} is a FIFO, socket or device, which the build could wait on forever; remove it`);
  };

  let walked = 0;
  const pending = [roots.integrationDir];
  while (pending.length > 0 && walked < MAX_WALK_ENTRIES) {
    const dir = pending.pop()!;
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (++walked > MAX_WALK_ENTRIES) break;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) pending.push(full);
      else if (entry.isSymbolicLink() && (await kindOf(full, true)) === 'directory')
        await judge(path.join(full, 'package.json'));
      else if (!entry.isFile()) await judge(full);
    }
  }
  for (let dir = path.dirname(roots.integrationDir); dir.startsWith(roots.workspaceRoot); dir = path.dirname(dir)) {
    await judge(path.join(dir, 'package.json'));
    if (dir === roots.workspaceRoot || path.dirname(dir) === dir) break;
  }
  for (const folder of roots.nodeModules.slice(1)) {
    for (const entry of await readdir(folder, { withFileTypes: true }).catch(() => [])) {
      const packageDir = path.join(folder, entry.name);
      if (entry.name.startsWith('@')) {
        for (const scoped of await readdir(packageDir).catch(() => []))
          await judge(path.join(packageDir, scoped, 'package.json'));
      } else await judge(path.join(packageDir, 'package.json'));
    }
  }
  return problems;
}

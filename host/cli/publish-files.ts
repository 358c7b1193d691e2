// What `publish` uploads: the integration folder's regular files (not node_modules, not dot-files
// such as .dev.vars or .git) and, under node_modules/, the package files its bundle read, so the
// host can build it without installing anything. Refuses a symlink or special file, naming it.

import { lstat, readdir, readFile, realpath } from 'node:fs/promises';
import path from 'node:path';
import { HostError } from '../common/errors.ts';
import { isInside } from '../manifest/paths.ts';
import { resolutionRoots } from '../manifest/resolution-roots.ts';
import type { ArchiveFile } from '../publish/archive-read.ts';

const posix = (relative: string) => relative.split(path.sep).join('/');

async function walk(root: string, dir: string, files: ArchiveFile[]): Promise<void> {
  for (const entry of (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
    const full = path.join(dir, entry.name);
    const shown = posix(path.relative(root, full));
    if (entry.isDirectory()) await walk(root, full, files);
    else if (entry.isFile()) files.push({ path: shown, bytes: await readFile(full) });
    else
      throw new HostError(
        'ERR_OPTIONS_INVALID',
        `${shown} is ${entry.isSymbolicLink() ? 'a symbolic link' : 'not a regular file'}: a published ` +
          'integration holds regular files only (copy what it points to, or move it out of the folder)',
      );
  }
}

/**
 * The folder's files, then each bundle input inside a node_modules folder (the integration's own or
 * a workspace's above it) as `node_modules/<its path there>`; the nearest copy of a path wins.
 */
export async function publishedFiles(folder: string, bundleInputs: readonly string[]): Promise<ArchiveFile[]> {
  const root = await realpath(folder);
  const files: ArchiveFile[] = [];
  await walk(root, root, files);
  const taken = new Set(files.map((file) => file.path));
  // The folders the bundle may have resolved packages through, nearest first (as `check` built it).
  const { nodeModules } = await resolutionRoots(root, path.dirname(root));
  for (const input of bundleInputs) {
    const folder = nodeModules.find((candidate) => isInside(candidate, input));
    if (folder === undefined) continue;
    const archived = `node_modules/${posix(path.relative(folder, input))}`;
    if (taken.has(archived) || !(await lstat(input)).isFile()) continue;
    taken.add(archived);
    files.push({ path: archived, bytes: await readFile(input) });
  }
  return files;
}

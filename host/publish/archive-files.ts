// The files of a published version: packed into the canonical archive the store keeps (sorted,
// no owners, no times), hashed into the version's content hash, and written into a fresh private
// folder. Writing never follows or replaces anything: the folder must not exist yet.

import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { buffer } from 'node:stream/consumers';
import { createGzip } from 'node:zlib';
import tar from 'tar-stream';
import type { ArchiveFile } from './archive-read.ts';

const byPath = (a: ArchiveFile, b: ArchiveFile) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

/** sha256 hex over every file's path and bytes, in path order: the same folder gives the same hash. */
export function contentHash(files: readonly ArchiveFile[]): string {
  const hash = createHash('sha256');
  for (const file of [...files].sort(byPath)) {
    hash.update(`${file.path}\0${file.bytes.length}\0`);
    hash.update(file.bytes);
  }
  return hash.digest('hex');
}

/** A gzipped tar of the files: regular files only, mode 0644, owner 0, time 0, in path order. */
export async function packArchive(files: readonly ArchiveFile[]): Promise<Buffer> {
  const pack = tar.pack();
  const gzip = createGzip();
  const done = buffer(gzip);
  pack.pipe(gzip);
  for (const file of [...files].sort(byPath)) {
    await new Promise<void>((resolve, reject) =>
      pack.entry(
        { name: file.path, size: file.bytes.length, mode: 0o644, mtime: new Date(0), uid: 0, gid: 0 },
        file.bytes,
        (error) => (error ? reject(error) : resolve()),
      ),
    );
  }
  pack.finalize();
  return done;
}

/**
 * Writes the files under `dir`, which must not exist (created 0700, files 0600 with `wx`). The
 * paths were judged by entry-path.ts; a path leaving `dir` all the same is a host bug and throws.
 */
export async function writeFiles(files: readonly ArchiveFile[], dir: string): Promise<void> {
  const root = path.resolve(dir);
  await mkdir(root, { mode: 0o700 });
  for (const file of files) {
    const target = path.resolve(root, file.path);
    if (!target.startsWith(`${root}${path.sep}`)) throw new Error(`refusing to write outside ${root}`);
    await mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
    await writeFile(target, file.bytes, { flag: 'wx', mode: 0o600 });
  }
}

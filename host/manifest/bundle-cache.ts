// Content-addressed cache of integration bundles: in memory and on disk (`<hash>.js` plus one small
// entry file per script listing its inputs). A hit is only served after re-hashing every listed
// input; never trust mtimes, and never let a cache failure fail a bundle (it only costs a rebuild).

import { createHash, randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { MAX_SOURCE_FILE_BYTES, readRegularFile } from './read-file.ts';
import path from 'node:path';
import { version as ESBUILD_VERSION } from 'esbuild';

/** Bump when the build options or the wrapper change, so old bundles are never served. */
// Bumped whenever the bundle's shape changes, so bundles cached before are rebuilt.
const BUNDLER_VERSION = 'ih-bundle/2';

interface CacheEntry {
  version: string;
  entry: string;
  hash: string;
  /** Absolute paths of every file the build read, as recorded by the last build. */
  inputs: string[];
}

const memory = new Map<string, CacheEntry & { code: string }>();

/** Drops the in-process cache (tests, hot reload); the disk cache stays. */
export function clearBundleMemoryCache(): void {
  memory.clear();
}

/** sha256 over the bundler identity, the entry and each input's path and bytes, in path order. */
export function hashInputs(entryReal: string, contents: Map<string, Uint8Array>): string {
  const hash = createHash('sha256').update(`${BUNDLER_VERSION}\0${ESBUILD_VERSION}\0${entryReal}\0`);
  for (const file of [...contents.keys()].sort()) {
    const bytes = contents.get(file)!;
    hash.update(`${file}\0${bytes.length}\0`).update(bytes);
  }
  return hash.digest('hex');
}

export async function readCachedBundle(cacheDir: string, entryReal: string): Promise<{ code: string; hash: string } | null> {
  const inMemory = memory.get(entryReal);
  const known = inMemory ?? (await readEntry(cacheDir, entryReal));
  if (!known || known.version !== BUNDLER_VERSION || known.entry !== entryReal) return null;
  const contents = new Map<string, Uint8Array>();
  for (const file of known.inputs) {
    // Same rule as the build: an input that is no longer a regular file is never read.
    const bytes = await readRegularFile(file, MAX_SOURCE_FILE_BYTES).catch(() => null);
    if (!bytes) return null; // an input was removed or changed kind: resolution may differ now, rebuild
    contents.set(file, bytes);
  }
  if (hashInputs(entryReal, contents) !== known.hash) return null;
  const code = inMemory ? inMemory.code : await readFile(codePath(cacheDir, known.hash), 'utf8').catch(() => null);
  if (code === null) return null;
  memory.set(entryReal, { ...known, code });
  return { code, hash: known.hash };
}

export async function writeCachedBundle(
  cacheDir: string,
  entryReal: string,
  hash: string,
  inputs: string[],
  code: string,
): Promise<void> {
  const entry: CacheEntry = { version: BUNDLER_VERSION, entry: entryReal, hash, inputs };
  memory.set(entryReal, { ...entry, code });
  try {
    await mkdir(path.join(cacheDir, 'entries'), { recursive: true });
    await writeAtomic(codePath(cacheDir, hash), code);
    await writeAtomic(entryPath(cacheDir, entryReal), JSON.stringify(entry));
  } catch {
    // Read-only or full disk: the in-memory entry still serves this process.
  }
}

async function readEntry(cacheDir: string, entryReal: string): Promise<CacheEntry | null> {
  try {
    const parsed = JSON.parse(await readFile(entryPath(cacheDir, entryReal), 'utf8')) as CacheEntry;
    const valid = typeof parsed.hash === 'string' && /^[0-9a-f]{64}$/.test(parsed.hash) && Array.isArray(parsed.inputs);
    return valid ? parsed : null;
  } catch {
    return null;
  }
}

/** tmp + rename: a concurrent reader sees the old file or the new one, never half of one. */
async function writeAtomic(file: string, text: string): Promise<void> {
  const tmp = `${file}.${process.pid}.${randomUUID()}.tmp`;
  try {
    await writeFile(tmp, text);
    await rename(tmp, file);
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
}

function codePath(cacheDir: string, hash: string): string {
  return path.join(cacheDir, `${hash}.js`);
}

function entryPath(cacheDir: string, entryReal: string): string {
  return path.join(cacheDir, 'entries', `${createHash('sha256').update(entryReal).digest('hex')}.json`);
}

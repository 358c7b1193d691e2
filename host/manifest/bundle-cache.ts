// Content-addressed cache of integration bundles: in memory and on disk (`<hash>.js`, its source
// map `<hash>.js.map`, and one small entry file per script and build variant listing its inputs). A hit is only served
// after re-hashing every listed input and the listings of the node_modules folders resolution may look
// in (a package installed nearer can change what a bare import means without changing any built
// file); never trust mtimes, and never let a cache failure fail a bundle (it only costs a rebuild).

import { createHash, randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { MAX_SOURCE_FILE_BYTES, readRegularFile } from './read-file.ts';
import path from 'node:path';
import { version as ESBUILD_VERSION } from 'esbuild';

/** Bump when the build options or the wrapper change, so old bundles are never served. */
const BUNDLER_VERSION = 'ih-bundle/5';

/** What identifies a build besides its input files. */
export interface CacheKey {
  /** Real path of the entry script. */
  entry: string;
  /** The build options that vary between builds of one entry (mode, JSX source), serialized. */
  variant: string;
  /** node_modules folders whose package names are part of the hash (missing ones count as empty). */
  listings: string[];
}

interface CacheEntry {
  version: string;
  entry: string;
  variant: string;
  listings: string[];
  hash: string;
  /** Absolute paths of every file the build read, as recorded by the last build. */
  inputs: string[];
}

const memory = new Map<string, CacheEntry & { code: string; map: string }>();

const memoryKey = (key: CacheKey): string => `${key.entry}\0${key.variant}`;

/** Drops the in-process cache (tests, hot reload); the disk cache stays. */
export function clearBundleMemoryCache(): void {
  memory.clear();
}

/** Drops what the in-process cache holds of entries under `folder` (a staged upload, removed after). */
export function forgetBundlesUnder(folder: string): void {
  const prefix = folder.endsWith(path.sep) ? folder : folder + path.sep;
  for (const key of [...memory.keys()]) if (key.startsWith(prefix)) memory.delete(key);
}

/** The package names in a node_modules folder (scoped ones as `@scope/name`), sorted; none if absent. */
async function packageNames(folder: string): Promise<string[]> {
  const names: string[] = [];
  for (const name of await readdir(folder).catch(() => [] as string[])) {
    if (name.startsWith('@'))
      for (const inner of await readdir(path.join(folder, name)).catch(() => [] as string[]))
        names.push(`${name}/${inner}`);
    else names.push(name);
  }
  return names.sort();
}

/**
 * sha256 over the bundler identity, the entry, the variant, the package names of each listed
 * node_modules folder and each input's path and bytes, in path order.
 */
export async function hashInputs(key: CacheKey, contents: Map<string, Uint8Array>): Promise<string> {
  const hash = createHash('sha256').update(`${BUNDLER_VERSION}\0${ESBUILD_VERSION}\0${key.entry}\0${key.variant}\0`);
  for (const folder of key.listings) hash.update(`${folder}\0${(await packageNames(folder)).join('\n')}\0`);
  for (const file of [...contents.keys()].sort()) {
    const bytes = contents.get(file)!;
    hash.update(`${file}\0${bytes.length}\0`).update(bytes);
  }
  return hash.digest('hex');
}

export async function readCachedBundle(
  cacheDir: string,
  key: CacheKey,
): Promise<{ code: string; hash: string; map: string; inputs: string[] } | null> {
  const inMemory = memory.get(memoryKey(key));
  const known = inMemory ?? (await readEntry(cacheDir, key));
  if (!known || known.version !== BUNDLER_VERSION || known.entry !== key.entry || known.variant !== key.variant)
    return null;
  if (known.listings.join('\0') !== key.listings.join('\0')) return null;
  const contents = new Map<string, Uint8Array>();
  for (const file of known.inputs) {
    // Same rule as the build: an input that is no longer a regular file is never read.
    const bytes = await readRegularFile(file, MAX_SOURCE_FILE_BYTES).catch(() => null);
    if (!bytes) return null; // an input was removed or changed kind: resolution may differ now, rebuild
    contents.set(file, bytes);
  }
  if ((await hashInputs(key, contents)) !== known.hash) return null;
  const code = inMemory ? inMemory.code : await readFile(codePath(cacheDir, known.hash), 'utf8').catch(() => null);
  const map = inMemory
    ? inMemory.map
    : await readFile(`${codePath(cacheDir, known.hash)}.map`, 'utf8').catch(() => null);
  if (code === null || map === null) return null;
  memory.set(memoryKey(key), { ...known, code, map });
  return { code, hash: known.hash, map, inputs: known.inputs };
}

export async function writeCachedBundle(
  cacheDir: string,
  key: CacheKey,
  hash: string,
  inputs: string[],
  code: string,
  map: string,
): Promise<void> {
  const entry: CacheEntry = {
    version: BUNDLER_VERSION,
    entry: key.entry,
    variant: key.variant,
    listings: key.listings,
    hash,
    inputs,
  };
  memory.set(memoryKey(key), { ...entry, code, map });
  try {
    await mkdir(path.join(cacheDir, 'entries'), { recursive: true });
    await writeAtomic(codePath(cacheDir, hash), code);
    await writeAtomic(`${codePath(cacheDir, hash)}.map`, map);
    await writeAtomic(entryPath(cacheDir, key), JSON.stringify(entry));
  } catch {
    // Read-only or full disk: the in-memory entry still serves this process.
  }
}

async function readEntry(cacheDir: string, key: CacheKey): Promise<CacheEntry | null> {
  try {
    const parsed = JSON.parse(await readFile(entryPath(cacheDir, key), 'utf8')) as CacheEntry;
    const valid =
      typeof parsed.hash === 'string' &&
      /^[0-9a-f]{64}$/.test(parsed.hash) &&
      Array.isArray(parsed.inputs) &&
      Array.isArray(parsed.listings);
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

function entryPath(cacheDir: string, key: CacheKey): string {
  return path.join(cacheDir, 'entries', `${createHash('sha256').update(memoryKey(key)).digest('hex')}.json`);
}

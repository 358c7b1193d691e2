// Bundles an integration script with esbuild into one classic script whose completion value is
// the entry's module namespace. Enforces what the sandbox cannot undo later: no Node built-ins and
// no file outside the integration folder (sandbox-api excepted) ever enters a bundle.

import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type BuildOptions, type Message } from 'esbuild';
import { HostError } from '../common/errors.ts';
import type { IntegrationBundle } from './types.ts';
import { isInside } from './paths.ts';
import { hashInputs, readCachedBundle, writeCachedBundle } from './bundle-cache.ts';
import { containmentPlugin, REJECTED } from './containment.ts';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DEFAULT_CACHE_DIR = path.join(REPO_ROOT, '.cache', 'bundles');

export async function bundleScript(
  integrationDir: string,
  scriptRelPath: string,
  options: { cacheDir?: string } = {},
): Promise<IntegrationBundle> {
  const dirReal = await realpath(integrationDir).catch(() => null);
  if (!dirReal) throw new HostError('ERR_BUNDLE_FAILED', `integration folder "${integrationDir}" does not exist`);
  const entryReal = await realpath(path.resolve(dirReal, scriptRelPath)).catch(() => null);
  if (!entryReal) throw new HostError('ERR_BUNDLE_FAILED', `script "${scriptRelPath}" does not exist`);
  if (!isInside(dirReal, entryReal)) {
    throw new HostError('ERR_BUNDLE_FAILED', `script "${scriptRelPath}" resolves outside the integration folder`);
  }
  const cacheDir = path.resolve(options.cacheDir ?? DEFAULT_CACHE_DIR);
  const hit = await readCachedBundle(cacheDir, entryReal);
  if (hit) return { ...hit, cached: true };

  const contents = new Map<string, Uint8Array>();
  const code = await runBuild(dirReal, entryReal, contents);
  const hash = hashInputs(entryReal, contents);
  await writeCachedBundle(cacheDir, entryReal, hash, [...contents.keys()], code);
  return { code, hash, cached: false };
}

/**
 * The esbuild options of every integration bundle: a classic script for a web-like worker with
 * the containment plugin deciding what may enter. Tests that bundle a snippet use these too.
 */
export function integrationBuildOptions(dirReal: string, offenses: string[], contents: Map<string, Uint8Array>): BuildOptions {
  return {
    absWorkingDir: dirReal,
    write: false,
    bundle: true,
    format: 'iife',
    globalName: '__ih_entry',
    platform: 'neutral',
    target: 'es2022',
    jsx: 'automatic',
    jsxImportSource: 'sandbox-api',
    mainFields: ['module', 'main'],
    // The isolate is a web-like worker, not Node: prefer packages' worker/browser builds.
    conditions: ['worker', 'browser', 'import', 'default'],
    // Hermetic: a tsconfig.json (the repo's or the integration's) must not change resolution,
    // and it is not part of the cache key.
    tsconfigRaw: {},
    logLevel: 'silent',
    charset: 'utf8',
    legalComments: 'none',
    sourcemap: false,
    plugins: [containmentPlugin(dirReal, offenses, contents)],
  };
}

/**
 * A local `var __ih_entry` and the namespace as completion value: no global is created. An arrow
 * function, so the bundle's top level has no `arguments` (a sloppy `function` wrapper would hand
 * its own source, the whole bundle, to `eval('arguments.callee')`).
 */
export function wrapBundle(text: string): string {
  return `(() => {\n${text}\nreturn __ih_entry;\n})()`;
}

/**
 * Blanks the `// <path>` line esbuild writes before each module: relative to the integration
 * folder, they spell out where the host and its sandbox-api live. Lines are emptied, not removed,
 * so line numbers (and source maps) stay true. Only those exact markers are touched.
 */
export function blankModuleMarkers(text: string, dirReal: string, files: Iterable<string>): string {
  const markers = new Set(['// <stdin>']);
  for (const file of files) markers.add(`// ${path.relative(dirReal, file).split(path.sep).join('/')}`);
  return text
    .split('\n')
    .map((line) => (markers.has(line.trim()) ? '' : line))
    .join('\n');
}

/** Turns esbuild's failure into the offenses it names (errors about rejected-import stubs only repeat one). */
export function collectBuildErrors(error: unknown, offenses: string[]): void {
  const messages = (error as { errors?: Message[] }).errors;
  if (!messages) throw error;
  offenses.push(...messages.filter((m) => !m.text.includes(`${REJECTED}:`)).map(describeMessage));
}

async function runBuild(dirReal: string, entryReal: string, contents: Map<string, Uint8Array>): Promise<string> {
  const offenses: string[] = [];
  let text: string;
  try {
    const result = await build({ ...integrationBuildOptions(dirReal, offenses, contents), entryPoints: [entryReal] });
    text = result.outputFiles![0].text;
  } catch (error) {
    collectBuildErrors(error, offenses);
  }
  if (offenses.length > 0) {
    const details = offenses.map((message) => ({ message }));
    throw new HostError('ERR_BUNDLE_FAILED', offenses.join('; '), details);
  }
  return wrapBundle(blankModuleMarkers(text!, dirReal, contents.keys()));
}

function describeMessage(message: Message): string {
  const where = message.location ? `${message.location.file}:${message.location.line}:${message.location.column}: ` : '';
  return `${where}${message.text}`;
}

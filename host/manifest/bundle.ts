// Bundles an integration script with esbuild into one classic script whose completion value is
// the entry's module namespace. Enforces what the sandbox cannot undo later: no Node built-ins and
// no file outside the integration folder and its node_modules (sandbox-api excepted) ever enters a
// bundle. `MODE` and `process.env.NODE_ENV` are compile-time constants; there is no `process`.

import { PACKAGE_ROOT } from '../common/package-root.ts';
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { build, type BuildOptions, type Message } from 'esbuild';
import { HostError, type ErrorDetail } from '../common/errors.ts';
import { lineOf } from '../common/code-frame.ts';
import type { IntegrationBundle } from './types.ts';
import { isInside } from './paths.ts';
import { hashInputs, readCachedBundle, writeCachedBundle } from './bundle-cache.ts';
import { containmentPlugin, PROVIDED_BINDING, REJECTED } from './containment.ts';
import { findSpecialFiles } from './special-files.ts';
import { resolutionRoots, type ResolutionRoots } from './resolution-roots.ts';
import { prepareSourceMap } from './source-map.ts';
import { positionInFile } from './source-map-comment.ts';
import { PROVIDED_MODULES } from '../../sandbox-api/runtime/provided.ts';

const DEFAULT_CACHE_DIR = path.join(PACKAGE_ROOT, '.cache', 'bundles');

export type BundleMode = 'production' | 'development';

export interface BundleOptions {
  cacheDir?: string;
  /** Default production; `npm run dev` builds development. */
  mode?: BundleMode;
  /** Where `.tsx` JSX comes from; default `sandbox-api` (gitbook-manifest.yaml integrations: `@gitbook/runtime`). */
  jsxImportSource?: string;
  /** The folder given to --dir; default the integration folder itself (see resolution-roots.ts). */
  root?: string;
}

/** What, besides the input files, decides the bytes of a bundle: part of the cache key. */
interface BuildVariant {
  mode: BundleMode;
  jsxImportSource: string;
}

/**
 * What, besides the inputs, decides how a bundle links to the runtime: the wrapper's form and the
 * provided modules' export names (their stubs list them), and whether input source maps are
 * followed (source-map-comment.ts). Part of the cache key, so a bundle built another way is
 * rebuilt, never run.
 */
const LINKING = JSON.stringify({
  wrapper: 'provided-modules-1',
  inputSourceMaps: 'not-followed',
  provided: Object.entries(PROVIDED_MODULES).map(([specifier, module]) => [specifier, Object.keys(module)]),
});

export async function bundleScript(
  integrationDir: string,
  scriptRelPath: string,
  options: BundleOptions = {},
): Promise<IntegrationBundle> {
  const dirReal = await realpath(integrationDir).catch(() => null);
  if (!dirReal) throw new HostError('ERR_BUNDLE_FAILED', `integration folder "${integrationDir}" does not exist`);
  const entryReal = await realpath(path.resolve(dirReal, scriptRelPath)).catch(() => null);
  if (!entryReal) throw new HostError('ERR_BUNDLE_FAILED', `script "${scriptRelPath}" does not exist`);
  if (!isInside(dirReal, entryReal)) {
    throw new HostError('ERR_BUNDLE_FAILED', `script "${scriptRelPath}" resolves outside the integration folder`);
  }
  const variant: BuildVariant = {
    mode: options.mode ?? 'production',
    jsxImportSource: options.jsxImportSource ?? 'sandbox-api',
  };
  const roots = await resolutionRoots(dirReal, options.root ?? dirReal);
  const special = await findSpecialFiles(roots);
  if (special.length > 0)
    throw new HostError(
      'ERR_BUNDLE_FAILED',
      special.join('; '),
      special.map((message) => ({ message })),
    );
  const key = {
    entry: entryReal,
    variant: JSON.stringify({ ...variant, linking: LINKING }),
    listings: roots.nodeModules,
  };
  const cacheDir = path.resolve(options.cacheDir ?? DEFAULT_CACHE_DIR);
  const hit = await readCachedBundle(cacheDir, key);
  if (hit) return { ...hit, cached: true };

  const contents = new Map<string, Uint8Array>();
  const { code, map } = await runBuild(roots, entryReal, contents, variant);
  const hash = await hashInputs(key, contents);
  const inputs = [...contents.keys()];
  await writeCachedBundle(cacheDir, key, hash, inputs, code, map);
  return { code, hash, map, inputs, cached: false };
}

/**
 * The esbuild options of every integration bundle: a classic script for a web-like worker with
 * the containment plugin deciding what may enter. Tests that bundle a snippet use these too (a
 * string is an integration folder resolving through its own node_modules only).
 */
export function integrationBuildOptions(
  where: ResolutionRoots | string,
  offenses: string[],
  contents: Map<string, Uint8Array>,
  variant: Partial<BuildVariant> = {},
): BuildOptions {
  const roots =
    typeof where === 'string'
      ? { integrationDir: where, workspaceRoot: where, nodeModules: [path.join(where, 'node_modules')] }
      : where;
  const mode = variant.mode ?? 'production';
  return {
    absWorkingDir: roots.integrationDir,
    write: false,
    bundle: true,
    format: 'iife',
    globalName: '__ih_entry',
    platform: 'neutral',
    target: 'es2022',
    jsx: 'automatic',
    jsxImportSource: variant.jsxImportSource ?? 'sandbox-api',
    // The isolate is a web-like worker, not Node: prefer packages' worker/browser builds (the
    // `browser` field also swaps Node-only files for their browser versions).
    mainFields: ['worker', 'browser', 'module', 'main'],
    conditions: ['worker', 'browser', 'import', mode, 'default'],
    // Compile-time constants, as GitBook's CLI defines them. No `process` object exists at run time
    // (libraries probing `process.versions.node` must keep taking their web path).
    define: { MODE: JSON.stringify(mode), 'process.env.NODE_ENV': JSON.stringify(mode) },
    // Hermetic: a tsconfig.json (the repo's or the integration's) must not change resolution,
    // and it is not part of the cache key.
    tsconfigRaw: {},
    logLevel: 'silent',
    charset: 'utf8',
    legalComments: 'none',
    sourcemap: false,
    plugins: [containmentPlugin(roots, offenses, contents)],
  };
}

/**
 * The bundle as a function expression (its completion value): the runtime calls it with the
 * modules it provides (sandbox-api/runtime/provided.ts; setEntry), it runs the bundle's top level
 * and returns the namespace, a local `var __ih_entry`: no global is created. The argument is bound
 * to a constant the provided modules' stubs read, so guest code cannot rebind it for the stubs.
 * An arrow function, so the bundle's top level has no `arguments` (a sloppy `function` wrapper
 * would hand its own source, the whole bundle, to `eval('arguments.callee')`).
 */
export function wrapBundle(text: string): string {
  return `((__ih_modules) => { const ${PROVIDED_BINDING} = __ih_modules;\n${text}\nreturn __ih_entry;\n})`;
}

/** Lines wrapBundle() puts before the bundle (the source map is shifted by as many). */
const WRAPPER_LEADING_LINES = 1;

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

/**
 * Turns esbuild's failure into the problems it names (errors about rejected-import stubs only
 * repeat an offense the containment plugin recorded). A located message keeps its file (relative
 * to the build's folder), line, 1-based character column and the line's text; with `read` (the
 * build's folder and the files the containment plugin read) the position and text come from the
 * file as read, so one in the line appended to each file (source-map-comment.ts) is its end.
 */
export function buildProblems(
  error: unknown,
  read?: { dir: string; contents: Map<string, Uint8Array> },
): ErrorDetail[] {
  const messages = (error as { errors?: Message[] }).errors;
  if (!messages) throw error;
  return messages.filter((m) => !m.text.includes(`${REJECTED}:`)).map((message) => locate(message, read));
}

function locate(message: Message, read?: { dir: string; contents: Map<string, Uint8Array> }): ErrorDetail {
  const where = message.location;
  if (!where) return { message: message.text };
  const bytes = read?.contents.get(path.resolve(read.dir, where.file));
  const { line, column } = bytes ? positionInFile(bytes, where.line, where.column) : where;
  const lineText = bytes ? lineOf(Buffer.from(bytes).toString('utf8'), line) : where.lineText;
  // esbuild counts columns and lengths in bytes of UTF-8; people count characters.
  const utf8 = Buffer.from(lineText, 'utf8');
  const characters = (from: number, to: number) => utf8.subarray(from, to).toString('utf8').length;
  const source = {
    file: where.file,
    line,
    column: characters(0, column) + 1,
    lineText,
    length: Math.max(1, characters(column, column + where.length)),
  };
  return { message: message.text, source };
}

/** A build problem on one line (tests bundling a snippet): `file:line:col: message`. */
export function describeBuildProblem(problem: ErrorDetail): string {
  const at = problem.source;
  return at ? `${at.file}:${at.line}:${at.column}: ${problem.message}` : problem.message;
}

async function runBuild(
  roots: ResolutionRoots,
  entryReal: string,
  contents: Map<string, Uint8Array>,
  variant: BuildVariant,
): Promise<{ code: string; map: string }> {
  const offenses: string[] = [];
  let failures: ErrorDetail[] = [];
  let text: string;
  let mapText: string;
  // Only named for the source map's relative paths; nothing is written (write: false).
  const outfile = path.join(roots.integrationDir, 'bundle.js');
  try {
    // A source map lets the worker show guest stack traces as src/index.ts:6:11 (sandbox/stack-map.ts).
    // No sources content: esbuild would read every file an input map's `sources` names to fill it.
    const result = await build({
      ...integrationBuildOptions(roots, offenses, contents, variant),
      entryPoints: [entryReal],
      outfile,
      sourcemap: 'external',
      sourcesContent: false,
    });
    text = result.outputFiles!.find((file) => file.path.endsWith('.js'))!.text;
    mapText = result.outputFiles!.find((file) => file.path.endsWith('.map'))!.text;
  } catch (error) {
    failures = buildProblems(error, { dir: roots.integrationDir, contents });
  }
  const details = [...offenses.map((message) => ({ message })), ...failures];
  if (details.length > 0)
    throw new HostError('ERR_BUNDLE_FAILED', details.map(describeBuildProblem).join('; '), details);
  return {
    code: wrapBundle(blankModuleMarkers(text!, roots.integrationDir, contents.keys())),
    map: prepareSourceMap(mapText!, path.dirname(outfile), roots.integrationDir, WRAPPER_LEADING_LINES),
  };
}

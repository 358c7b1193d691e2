// The esbuild plugin that decides what may enter an integration bundle: `sandbox-api` by name,
// files inside the integration folder, and files inside the node_modules folders the integration
// may resolve through (its own and its ancestors' up to the workspace root, see resolution-roots.ts),
// nothing else, judged by real path so a symlink cannot smuggle a file in. It records every offense
// instead of failing on the first, and records the bytes it loads (and the package.json files that
// steered resolution) so the cache hash covers exactly what was built.

import { lstatSync, realpathSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Loader, Plugin } from 'esbuild';
import { isInside } from './paths.ts';
import { describeMissingImport } from './missing-import.ts';
import { MAX_SOURCE_FILE_BYTES, readRegularFile, UnreadableFileError } from './read-file.ts';
import type { ResolutionRoots } from './resolution-roots.ts';
import { withInputSourceMapIgnored } from './source-map-comment.ts';
import { PROVIDED_MODULES } from '../../sandbox-api/runtime/provided.ts';

const SANDBOX_API_DIR = fileURLToPath(new URL('../../sandbox-api', import.meta.url));
/** Namespace of the empty stand-ins for rejected imports. */
export const REJECTED = 'ih-rejected';
/** Namespace of the stubs that stand for a module the runtime provides (provided.ts). */
export const PROVIDED = 'ih-provided';
/**
 * The name under which a bundle's stubs read the runtime's provided modules: a constant bound by
 * the wrapper (bundle.ts wrapBundle) to the argument the runtime calls it with.
 */
export const PROVIDED_BINDING = '__ih_provided';
const LOADERS = new Map<string, Loader>([
  ['.ts', 'ts'],
  ['.mts', 'ts'],
  ['.cts', 'ts'],
  ['.tsx', 'tsx'],
  ['.js', 'js'],
  ['.mjs', 'js'],
  ['.cjs', 'js'],
  ['.jsx', 'jsx'],
  ['.json', 'json'],
]);
/** Imported as a string (GitBook's CLI does the same): scripts and styles injected into pages. */
const TEXT_SUFFIXES = ['.raw.js', '.raw.css'];

export function containmentPlugin(
  roots: ResolutionRoots,
  offenses: string[],
  contents: Map<string, Uint8Array>,
): Plugin {
  const sandboxReal = realpathOrSelf(SANDBOX_API_DIR);
  const dirReal = roots.integrationDir;
  const inNodeModules = (file: string) => roots.nodeModules.some((folder) => isInside(folder, file));
  const allowedFile = (file: string) => isInside(dirReal, file) || inNodeModules(file);
  return {
    name: 'ih-containment',
    setup(b) {
      b.onResolve({ filter: /.*/ }, async (args) => {
        if (args.kind === 'entry-point' || args.pluginData?.ihResolving) return undefined;
        const from = displayImporter(args.importer, roots, sandboxReal);
        const reject = (why: string) => {
          offenses.push(`script imports "${args.path}" (from ${from})${why}`);
          return { path: args.path, namespace: REJECTED };
        };
        // 'sandbox-api' and its JSX runtimes come from the runtime (provided.ts), not the bundle.
        if (Object.hasOwn(PROVIDED_MODULES, args.path)) return { path: args.path, namespace: PROVIDED };
        if (args.path === 'sandbox-api' || args.path.startsWith('sandbox-api/')) {
          const file = resolveSandboxApi(args.path, sandboxReal);
          return file ? { path: file } : reject(': no such sandbox-api module');
        }
        if (isNodeBuiltin(args.path)) return reject(': Node built-ins are not available in the sandbox');
        const fromSandboxApi = isInside(sandboxReal, args.importer);
        // Judge relative and absolute paths before touching the disk: whether a file exists
        // outside the folder is none of the script's business.
        const outside =
          roots.nodeModules.length > 0
            ? ', which resolves outside the integration folder and its node_modules'
            : ', which resolves outside the integration folder';
        if (
          /^(\.\.?(\/|$)|\/)/.test(args.path) &&
          !fromSandboxApi &&
          !allowedFile(path.resolve(args.resolveDir, args.path))
        ) {
          return reject(outside);
        }
        const resolved = await b.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          namespace: args.namespace,
          with: args.with,
          pluginData: { ihResolving: true },
        });
        // A relative import of the integration's own code naming no file: say why it is likely
        // missing (an uncommitted build output) rather than only that it cannot be resolved.
        const ownCode = isInside(dirReal, args.importer) && !inNodeModules(args.importer);
        if (resolved.errors.length > 0 && ownCode && /^\.\.?(\/|$)/.test(args.path)) {
          return reject(
            (await describeMissingImport(dirReal, args.resolveDir, args.path)) ?? ', which cannot be resolved',
          );
        }
        // Anything but a plain file (data: URLs, externals) has no place in a sandbox bundle.
        if (resolved.errors.length > 0 || resolved.external || resolved.namespace !== 'file') {
          return reject(', which cannot be resolved');
        }
        const real = realpathOrSelf(resolved.path);
        // sandbox-api's own files may import each other; integration files reach it only by name.
        if (fromSandboxApi && isInside(sandboxReal, real)) return { path: real };
        if (!allowedFile(real)) {
          // Name the symlink when a package folder in an allowed node_modules points elsewhere.
          const link = symlinkedPackage(args.path, roots);
          return reject(link ? `${outside} (${link} is a symlink to a folder outside)` : outside);
        }
        if (inNodeModules(real)) await recordPackageJsons(real, roots, contents);
        return { path: real };
      });
      // A CommonJS stub: any import from it links, so the build goes on and finds every offense.
      b.onLoad({ filter: /.*/, namespace: REJECTED }, () => ({ contents: 'module.exports = {};', loader: 'js' }));
      b.onLoad({ filter: /.*/, namespace: PROVIDED }, (args) => ({ contents: providedStub(args.path), loader: 'ts' }));
      // Reading here (not letting esbuild read) makes the cache hash cover exactly the bytes built.
      b.onLoad({ filter: /.*/, namespace: 'file' }, async (args) => {
        const shown = displayImporter(args.path, roots, sandboxReal);
        const lower = args.path.toLowerCase();
        const asText = args.with.type === 'text' || TEXT_SUFFIXES.some((suffix) => lower.endsWith(suffix));
        const loader: Loader | undefined = asText ? 'text' : LOADERS.get(path.extname(lower));
        // Never left to esbuild: it would read any file it is handed, whatever its kind.
        if (loader === undefined) {
          offenses.push(
            `script imports ${shown}, which is not a source file (.ts, .tsx, .js, .mjs, .cjs, ` +
              `.jsx or .json; .raw.js, .raw.css or \`with { type: 'text' }\` as text)`,
          );
          return { contents: '', loader: 'js' };
        }
        let bytes: Buffer;
        try {
          bytes = await readRegularFile(args.path, MAX_SOURCE_FILE_BYTES);
        } catch (error) {
          offenses.push(
            `script imports ${shown}, which ${error instanceof UnreadableFileError ? error.message : 'cannot be read'}`,
          );
          return { contents: '', loader: 'js' };
        }
        contents.set(args.path, bytes);
        // Text and JSON are not parsed for source map comments; code is, and must not lead esbuild out.
        return { contents: loader === 'text' || loader === 'json' ? bytes : withInputSourceMapIgnored(bytes), loader };
      });
    },
  };
}

/**
 * The package.json files between a resolved node_modules file and its node_modules folder: they
 * decided which file a bare import became (`exports`, `module`, `browser`), so a changed one must
 * change the cache hash even when no built file changed.
 */
async function recordPackageJsons(
  file: string,
  roots: ResolutionRoots,
  contents: Map<string, Uint8Array>,
): Promise<void> {
  const folder = roots.nodeModules.find((candidate) => isInside(candidate, file));
  if (folder === undefined) return;
  for (let dir = path.dirname(file); dir !== folder && isInside(folder, dir); dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (contents.has(manifest)) continue;
    const bytes = await readRegularFile(manifest, MAX_SOURCE_FILE_BYTES).catch(() => null);
    if (bytes !== null) contents.set(manifest, bytes);
  }
}

/** `node_modules/<package>` of a bare specifier when, in one of the allowed folders, it is a symlink. */
function symlinkedPackage(specifier: string, roots: ResolutionRoots): string | null {
  if (/^(\.\.?(\/|$)|\/)/.test(specifier)) return null;
  const segments = specifier.split('/');
  const name = specifier.startsWith('@') ? segments.slice(0, 2).join('/') : segments[0];
  for (const folder of roots.nodeModules) {
    if (lstatSync(path.join(folder, name), { throwIfNoEntry: false })?.isSymbolicLink()) {
      return path.relative(roots.integrationDir, path.join(folder, name)).split(path.sep).join('/');
    }
  }
  return null;
}

/**
 * The module that stands for a provided one in a bundle: its exports, read once from the runtime's
 * frozen module. TypeScript (`ts`), so a name the module does not export is taken for a type, as
 * esbuild does for an import from sandbox-api's own .ts files (a missing value still fails to link
 * at run time, as it did).
 */
export function providedStub(specifier: string): string {
  const names = Object.keys(PROVIDED_MODULES[specifier]);
  const exports = names.map((name) => `export const ${name} = m.${name};`).join('\n');
  return `const m = ${PROVIDED_BINDING}[${JSON.stringify(specifier)}];\n${exports}\n`;
}

function resolveSandboxApi(specifier: string, sandboxReal: string): string | null {
  const sub = specifier === 'sandbox-api' ? 'index' : specifier.slice('sandbox-api/'.length);
  const base = path.resolve(sandboxReal, sub);
  if (!isInside(sandboxReal, base)) return null; // `sandbox-api/../host/...`
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, `${base}.js`, path.join(base, 'index.ts')]) {
    if (statSync(candidate, { throwIfNoEntry: false })?.isFile()) return realpathOrSelf(candidate);
  }
  return null;
}

function isNodeBuiltin(specifier: string): boolean {
  return (
    specifier.startsWith('node:') ||
    builtinModules.includes(specifier) ||
    builtinModules.includes(specifier.split('/')[0])
  );
}

function displayImporter(importer: string, roots: ResolutionRoots, sandboxReal: string): string {
  if (isInside(sandboxReal, importer))
    return `sandbox-api/${path.relative(sandboxReal, importer).split(path.sep).join('/')}`;
  // Relative to the integration folder, so a hoisted package reads `../../node_modules/…`.
  return path.relative(roots.integrationDir, importer).split(path.sep).join('/') || importer;
}

function realpathOrSelf(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return file;
  }
}

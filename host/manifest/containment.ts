// The esbuild plugin that decides what may enter an integration bundle: `sandbox-api` by name,
// files inside the integration folder, nothing else. It records every offense instead of failing
// on the first, and records the bytes it loads so the cache hash covers exactly what was built.

import { realpathSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Loader, Plugin } from 'esbuild';
import { isInside } from './paths.ts';
import { MAX_SOURCE_FILE_BYTES, readRegularFile, UnreadableFileError } from './read-file.ts';

const SANDBOX_API_DIR = fileURLToPath(new URL('../../sandbox-api', import.meta.url));
/** Namespace of the empty stand-ins for rejected imports. */
export const REJECTED = 'ih-rejected';
const LOADERS = new Map<string, Loader>([
  ['.ts', 'ts'], ['.mts', 'ts'], ['.tsx', 'tsx'], ['.js', 'js'], ['.mjs', 'js'], ['.cjs', 'js'], ['.jsx', 'jsx'], ['.json', 'json'],
]);

export function containmentPlugin(dirReal: string, offenses: string[], contents: Map<string, Uint8Array>): Plugin {
  const sandboxReal = realpathOrSelf(SANDBOX_API_DIR);
  return {
    name: 'ih-containment',
    setup(b) {
      b.onResolve({ filter: /.*/ }, async (args) => {
        if (args.kind === 'entry-point' || args.pluginData?.ihResolving) return undefined;
        const from = displayImporter(args.importer, dirReal, sandboxReal);
        const reject = (why: string) => {
          offenses.push(`script imports "${args.path}" (from ${from})${why}`);
          return { path: args.path, namespace: REJECTED };
        };
        if (args.path === 'sandbox-api' || args.path.startsWith('sandbox-api/')) {
          const file = resolveSandboxApi(args.path, sandboxReal);
          return file ? { path: file } : reject(': no such sandbox-api module');
        }
        if (isNodeBuiltin(args.path)) return reject(': Node built-ins are not available in the sandbox');
        const fromSandboxApi = isInside(sandboxReal, args.importer);
        // Judge relative and absolute paths before touching the disk: whether a file exists
        // outside the folder is none of the script's business.
        const outside = ', which resolves outside the integration folder';
        if (/^(\.\.?(\/|$)|\/)/.test(args.path) && !fromSandboxApi && !isInside(dirReal, path.resolve(args.resolveDir, args.path))) {
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
        // Anything but a plain file (data: URLs, externals) has no place in a sandbox bundle.
        if (resolved.errors.length > 0 || resolved.external || resolved.namespace !== 'file') {
          return reject(', which cannot be resolved');
        }
        const real = realpathOrSelf(resolved.path);
        // sandbox-api's own files may import each other; integration files reach it only by name.
        const allowed = isInside(dirReal, real) || (fromSandboxApi && isInside(sandboxReal, real));
        return allowed ? { path: real } : reject(outside);
      });
      // A CommonJS stub: any import from it links, so the build goes on and finds every offense.
      b.onLoad({ filter: /.*/, namespace: REJECTED }, () => ({ contents: 'module.exports = {};', loader: 'js' }));
      // Reading here (not letting esbuild read) makes the cache hash cover exactly the bytes built.
      b.onLoad({ filter: /.*/, namespace: 'file' }, async (args) => {
        const shown = displayImporter(args.path, dirReal, sandboxReal);
        const loader = LOADERS.get(path.extname(args.path).toLowerCase());
        // Never left to esbuild: it would read any file it is handed, whatever its kind.
        if (loader === undefined) {
          offenses.push(`script imports ${shown}, which is not a source file (.ts, .tsx, .js, .mjs, .cjs, .jsx or .json)`);
          return { contents: '', loader: 'js' };
        }
        let bytes: Buffer;
        try {
          bytes = await readRegularFile(args.path, MAX_SOURCE_FILE_BYTES);
        } catch (error) {
          offenses.push(`script imports ${shown}, which ${error instanceof UnreadableFileError ? error.message : 'cannot be read'}`);
          return { contents: '', loader: 'js' };
        }
        contents.set(args.path, bytes);
        return { contents: bytes, loader };
      });
    },
  };
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
  return specifier.startsWith('node:') || builtinModules.includes(specifier) || builtinModules.includes(specifier.split('/')[0]);
}

function displayImporter(importer: string, dirReal: string, sandboxReal: string): string {
  if (isInside(sandboxReal, importer)) return `sandbox-api/${path.relative(sandboxReal, importer).split(path.sep).join('/')}`;
  return path.relative(dirReal, importer).split(path.sep).join('/') || importer;
}

function realpathOrSelf(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return file;
  }
}

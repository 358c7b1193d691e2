// Builds the in-isolate runtime scripts (runs in Node, never in the isolate): install.ts bundled as
// an IIFE whose completion value is the install function, creating no global, snapshot.ts bundled
// for the startup snapshot every worker's isolates are made from, and each lazily loaded runtime
// module (modules/) as a script whose value is its entry. Memoized per process.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import { MODULE_SCOPE_NAMES, RUNTIME_MODULES, type RuntimeModuleName } from './contract.ts';

const ENTRY = fileURLToPath(new URL('./install.ts', import.meta.url));
const SNAPSHOT_ENTRY = fileURLToPath(new URL('./snapshot.ts', import.meta.url));

let memo: Promise<Built> | undefined;
let snapshotMemo: Promise<Built> | undefined;

/** A built script and its source map (lines already shifted to the script's own wrapper). */
interface Built {
  code: string;
  map: string;
}

async function bundle(
  entry: string,
  globalName?: string,
  outName = 'sandbox-runtime',
): Promise<{ code: string; map: string }> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    format: 'iife',
    ...(globalName ? { globalName } : {}),
    platform: 'neutral',
    target: 'es2022',
    minifyWhitespace: true,
    minifySyntax: true,
    write: false,
    logLevel: 'silent',
    legalComments: 'none',
    // Only named for the map's relative sources; nothing is written. The map never enters an
    // isolate: the worker uses it to name the provided sandbox-api modules' frames (stack-map.ts).
    outfile: fileURLToPath(new URL(`./${outName}.js`, import.meta.url)),
    sourcemap: 'external',
    sourcesContent: false,
  });
  const code = result.outputFiles.find((file) => file.path.endsWith('.js'))!.text;
  const map = result.outputFiles.find((file) => file.path.endsWith('.map'))!.text;
  // esbuild's trailing `//# sourceMappingURL=` comment names a file that does not exist: dropped.
  return { code: code.replace(/\n\/\/# sourceMappingURL=[^\n]*\n?$/, '\n'), map };
}

/** The map with its generated lines shifted down by `lines` (what a wrapper put before the code). */
function shifted(map: string, lines: number): string {
  if (lines === 0) return map;
  const parsed = JSON.parse(map) as { mappings: string };
  return JSON.stringify({ ...parsed, mappings: `${';'.repeat(lines)}${parsed.mappings}` });
}

const strict = (output: { code: string; map: string }): Built =>
  output.code.startsWith('"use strict";')
    ? output
    : { code: `"use strict";\n${output.code}`, map: shifted(output.map, 1) };

async function bundleRuntime(): Promise<Built> {
  const output = strict(await bundle(ENTRY, '__ih_runtime'));
  // Wrapped in a function, `var __ih_runtime` is a local: the script's value is install, no global.
  // Strict mode (esbuild emits it too; stated here on purpose): V8 call sites and Function#caller
  // then reveal no runtime function or receiver to a guest that introspects the stack.
  return {
    code: `(function () {\n${output.code}\nreturn __ih_runtime.install ?? __ih_runtime.default;\n})()`,
    map: shifted(output.map, 1),
  };
}

function runtimeBuild(): Promise<Built> {
  memo ??= bundleRuntime().catch((error: unknown) => {
    memo = undefined; // a failed build is not cached
    throw error;
  });
  return memo;
}

function snapshotBuild(): Promise<Built> {
  snapshotMemo ??= bundle(SNAPSHOT_ENTRY).then(strict, (error: unknown) => {
    snapshotMemo = undefined; // a failed build is not cached
    throw error;
  });
  return snapshotMemo;
}

let runtimeCode: Promise<string> | undefined;
let snapshotCode: Promise<string> | undefined;

/** The runtime script; compile it in the isolate and run it with `{ reference: true }` to get install. */
export function buildRuntimeScript(): Promise<string> {
  runtimeCode ??= runtimeBuild().then(
    (built) => built.code,
    (error: unknown) => {
      runtimeCode = undefined;
      throw error;
    },
  );
  return runtimeCode;
}

/**
 * The runtime's startup-snapshot script (snapshot.ts bundled as a strict IIFE that defines only
 * the global __ih_bootstrap): give it to isolated-vm's Isolate.createSnapshot.
 */
export function buildSnapshotScript(): Promise<string> {
  snapshotCode ??= snapshotBuild().then(
    (built) => built.code,
    (error: unknown) => {
      snapshotCode = undefined;
      throw error;
    },
  );
  return snapshotCode;
}

/**
 * The source maps of the two scripts above (sources relative to this folder: `../index.ts`,
 * `provided.ts`, …). For the worker's stack mapper only; never given to an isolate.
 */
export async function buildRuntimeMaps(): Promise<{ runtime: string; snapshot: string }> {
  const [runtime, snapshot] = await Promise.all([runtimeBuild(), snapshotBuild()]);
  return { runtime: runtime.map, snapshot: snapshot.map };
}

let modulesMemo: Promise<Record<RuntimeModuleName, string>> | undefined;

/**
 * Each runtime module (RUNTIME_MODULES, `modules/<name>.ts`) as a script whose value is a function
 * of MODULE_SCOPE_NAMES returning the module's entry: evaluating it in an isolate only makes that
 * function; the runtime calls it with its captured scope (modules.ts), so the module's free names
 * resolve to those values, never to globals a guest may have replaced.
 */
export function buildRuntimeModules(): Promise<Record<RuntimeModuleName, string>> {
  modulesMemo ??= (async () => {
    const built = await Promise.all(
      RUNTIME_MODULES.map(async (name) => {
        const entry = fileURLToPath(new URL(`./modules/${name}.ts`, import.meta.url));
        const output = await bundle(entry, '__ih_module', `sandbox-runtime-${name}`);
        const code =
          `(function (${MODULE_SCOPE_NAMES.join(', ')}) {\n"use ` +
          `strict";\n${output.code}\nreturn __ih_module.default;\n})\n//# ` +
          `sourceURL=sandbox-runtime-${name}.js\n`;
        return [name, code] as const;
      }),
    );
    return Object.fromEntries(built) as Record<RuntimeModuleName, string>;
  })().catch((error: unknown) => {
    modulesMemo = undefined;
    throw error;
  });
  return modulesMemo;
}

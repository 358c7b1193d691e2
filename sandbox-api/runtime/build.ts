// Builds the in-isolate runtime scripts (runs in Node, never in the isolate): install.ts bundled as
// an IIFE whose completion value is the install function, creating no global, and snapshot.ts
// bundled for the startup snapshot every worker's isolates are made from. Memoized per process.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const ENTRY = fileURLToPath(new URL('./install.ts', import.meta.url));
const SNAPSHOT_ENTRY = fileURLToPath(new URL('./snapshot.ts', import.meta.url));

let memo: Promise<string> | undefined;
let snapshotMemo: Promise<string> | undefined;

async function bundle(entry: string, globalName?: string): Promise<string> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    format: 'iife',
    ...(globalName ? { globalName } : {}),
    platform: 'neutral',
    target: 'es2022',
    minify: false,
    write: false,
    logLevel: 'silent',
    legalComments: 'none',
  });
  return result.outputFiles[0].text;
}

async function bundleRuntime(): Promise<string> {
  const output = await bundle(ENTRY, '__ih_runtime');
  // Wrapped in a function, `var __ih_runtime` is a local: the script's value is install, no global.
  // Strict mode (esbuild emits it too; stated here on purpose): V8 call sites and Function#caller
  // then reveal no runtime function or receiver to a guest that introspects the stack.
  const body = output.startsWith('"use strict";') ? output : `"use strict";\n${output}`;
  return `(function () {\n${body}\nreturn __ih_runtime.install ?? __ih_runtime.default;\n})()`;
}

/** The runtime script; compile it in the isolate and run it with `{ reference: true }` to get install. */
export function buildRuntimeScript(): Promise<string> {
  memo ??= bundleRuntime().catch((error: unknown) => {
    memo = undefined; // a failed build is not cached
    throw error;
  });
  return memo;
}

/**
 * The runtime's startup-snapshot script (snapshot.ts bundled as a strict IIFE that defines only
 * the global __ih_bootstrap): give it to isolated-vm's Isolate.createSnapshot.
 */
export function buildSnapshotScript(): Promise<string> {
  snapshotMemo ??= bundle(SNAPSHOT_ENTRY).then(
    (output) => (output.startsWith('"use strict";') ? output : `"use strict";\n${output}`),
    (error: unknown) => {
      snapshotMemo = undefined; // a failed build is not cached
      throw error;
    },
  );
  return snapshotMemo;
}

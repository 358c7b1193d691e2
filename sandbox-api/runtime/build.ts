// Builds the in-isolate runtime script (runs in Node, never in the isolate): install.ts bundled as
// an IIFE whose completion value is the install function, creating no global. Memoized per process.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const ENTRY = fileURLToPath(new URL('./install.ts', import.meta.url));

let memo: Promise<string> | undefined;

async function bundleRuntime(): Promise<string> {
  const result = await build({
    entryPoints: [ENTRY],
    bundle: true,
    format: 'iife',
    globalName: '__ih_runtime',
    platform: 'neutral',
    target: 'es2022',
    minify: false,
    write: false,
    logLevel: 'silent',
    legalComments: 'none',
  });
  const output = result.outputFiles[0].text;
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

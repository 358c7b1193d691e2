// The console's front end (the top-level console/ folder) bundled with the host's own esbuild:
// built once per process, on first use, into memory, and served from there. Owns the build
// options only; it never serves a file from disk by a path the request names.

import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const CONSOLE_DIR = fileURLToPath(new URL('../../../console/', import.meta.url));

export interface ConsoleAsset {
  body: Buffer;
  type: string;
  etag: string;
}

export interface ConsoleAssets {
  /** The one HTML page; every console path answers it, the router in the page does the rest. */
  page: ConsoleAsset;
  /** `console.js`, `console.css` and `favicon.svg`, by file name. */
  files: Map<string, ConsoleAsset>;
}

function asset(body: Buffer | Uint8Array | string, type: string): ConsoleAsset {
  const bytes = Buffer.from(body as Uint8Array);
  return { body: bytes, type, etag: `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 22)}"` };
}

async function buildAssets(): Promise<ConsoleAssets> {
  const result = await build({
    absWorkingDir: CONSOLE_DIR,
    entryPoints: { console: 'src/main.tsx' },
    outdir: 'dist',
    write: false,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: true,
    charset: 'utf8',
    legalComments: 'none',
    sourcemap: false,
    // Hermetic: the repository's tsconfig (JSX for sandbox-api) must not change this build.
    tsconfigRaw: {},
    logLevel: 'silent',
  });
  const files = new Map<string, ConsoleAsset>();
  for (const file of result.outputFiles) {
    const name = file.path.slice(file.path.lastIndexOf('/') + 1);
    files.set(
      name,
      asset(file.contents, name.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8'),
    );
  }
  for (const name of ['console.js', 'console.css']) {
    if (!files.has(name)) throw new Error(`the console build produced no ${name}`);
  }
  files.set('favicon.svg', asset(await readFile(`${CONSOLE_DIR}favicon.svg`), 'image/svg+xml'));
  const page = asset(await readFile(`${CONSOLE_DIR}index.html`), 'text/html; charset=utf-8');
  return { page, files };
}

let built: Promise<ConsoleAssets> | undefined;

/** Builds on the first call; later calls (other hosts in the same process) share the result. */
export function loadConsoleAssets(): Promise<ConsoleAssets> {
  built ??= buildAssets().catch((error: unknown) => {
    built = undefined;
    const detail = (error as { errors?: { text: string; location?: { file: string; line: number } | null }[] }).errors
      ?.map((message) =>
        message.location ? `${message.location.file}:${message.location.line}: ${message.text}` : message.text,
      )
      .join('; ');
    throw new Error(`the console front end (console/) failed to build: ${detail ?? (error as Error).message}`);
  });
  return built;
}

// Prepares an integration bundle's source map for the sandbox worker: every source named in the
// author's terms (relative to the integration folder; `sandbox-api/…`, `node_modules/<pkg>/…` or
// `external/<file>` for what lies outside it), never a host path, and lines shifted to the wrapper.

import { realpathSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isInside } from './paths.ts';
import { PROVIDED } from './containment.ts';

const SANDBOX_API_DIR = fileURLToPath(new URL('../../sandbox-api', import.meta.url));

function realpathOrSelf(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return file;
  }
}

const posix = (relative: string) => relative.split(path.sep).join('/');

/** The stable, host-independent name of one bundled file. */
export function sourceLabel(
  file: string,
  dirReal: string,
  sandboxReal: string = realpathOrSelf(SANDBOX_API_DIR),
): string {
  if (isInside(dirReal, file)) return posix(path.relative(dirReal, file));
  if (isInside(sandboxReal, file)) return `sandbox-api/${posix(path.relative(sandboxReal, file))}`;
  const parts = posix(file).split('/');
  const modules = parts.lastIndexOf('node_modules');
  if (modules !== -1 && modules < parts.length - 1) return `node_modules/${parts.slice(modules + 1).join('/')}`;
  return `external/${path.basename(file)}`;
}

/**
 * esbuild's map (sources relative to `outDir`) as the worker uses it: labelled sources, no source
 * contents, and one empty generated line first, for the line wrapBundle() puts before the code.
 */
export function prepareSourceMap(mapText: string, outDir: string, dirReal: string, leadingLines: number): string {
  const map = JSON.parse(mapText) as { version: number; sources: string[]; names?: string[]; mappings: string };
  const sandboxReal = realpathOrSelf(SANDBOX_API_DIR);
  const sources = map.sources.map((source) => {
    // The stub of a module the runtime provides (containment.ts): named by its specifier.
    if (source.startsWith(`${PROVIDED}:`)) return source.slice(PROVIDED.length + 1);
    return /^[a-z][a-z0-9+.-]*:/i.test(source)
      ? 'external/(generated)'
      : sourceLabel(path.resolve(outDir, source), dirReal, sandboxReal);
  });
  return JSON.stringify({
    version: map.version,
    sources,
    names: map.names ?? [],
    mappings: `${';'.repeat(leadingLines)}${map.mappings}`,
  });
}

// Rewrites positions in an integration's bundle (`integration:<name>:228:37`, as V8 prints them in
// stack traces) into the author's terms (`src/index.ts:6:11`) with the bundle's source map. Runs
// in the sandbox worker on text the guest produced; the guest never sees the map or this code.

import { SourceMap } from 'node:module';
import { FRAMES_SET_BY_INTEGRATION } from '../../sandbox-api/runtime/contract.ts';

/** The file name an integration's bundle is compiled under in its isolate (what stack frames show). */
export function scriptFilename(integration: string): string {
  return `integration:${integration}`;
}

/**
 * Positions mapped per log line. A stack has 10 frames; a guest filling 8 KiB lines with positions
 * must not make the worker (and its neighbours) do hundreds of lookups per line.
 */
export const MAX_MAPPED_POSITIONS = 50;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The file name the runtime's script is compiled under (runtime-snapshot.ts, realm.ts). */
export const RUNTIME_FILENAME = 'sandbox-runtime.js';

/** The filename of a lazily loaded runtime module's script in an isolate (its frames keep this name). */
export const runtimeModuleFilename = (name: string): string => `sandbox-runtime-${name}.js`;

/** A source map, parsed on first use; a broken one is null (it costs the mapping, never the log line). */
function lazyMap(mapJson: string): () => SourceMap | null {
  let map: SourceMap | null | undefined;
  return () => {
    if (map === undefined) {
      try {
        map = new SourceMap(JSON.parse(mapJson));
      } catch {
        map = null;
      }
    }
    return map;
  };
}

/**
 * `source:line:column` of a generated position (V8's 1-based line and column), or null when the map says nothing
 * there.
 */
function lookUp(sourceMap: SourceMap, line: string, column: string): { source: string; at: string } | null {
  // V8 prints 1-based lines and columns; the map's entries are 0-based.
  const generatedLine = Number(line) - 1;
  const generatedColumn = Number(column) - 1;
  const entry = sourceMap.findEntry(generatedLine, generatedColumn) as {
    generatedLine?: number;
    generatedColumn?: number;
    originalSource?: string;
    originalLine?: number;
    originalColumn?: number;
  };
  // Only a mapping on the same generated line says anything: the wrapper's own lines have none.
  if (
    entry.generatedLine !== generatedLine ||
    typeof entry.originalSource !== 'string' ||
    entry.originalLine === undefined ||
    entry.originalColumn === undefined
  )
    return null;
  const originalColumn = entry.originalColumn + (generatedColumn - (entry.generatedColumn ?? generatedColumn));
  return {
    source: entry.originalSource,
    at: `${entry.originalLine + 1}:${originalColumn + 1}`,
  };
}

/**
 * The sandbox-api module a runtime-map source is, as `sandbox-api/<file>`: only the public modules
 * the runtime provides to bundles (`../index.ts`, `../jsx-runtime.ts`, … relative to
 * sandbox-api/runtime/), never the runtime's own files, whose frames stay `sandbox-runtime.js:L:C`.
 */
function providedLabel(source: string): string | null {
  if (!source.startsWith('../') || source.startsWith('../runtime/') || source.slice(3).includes('..')) return null;
  return `sandbox-api/${source.slice(3)}`;
}

/**
 * A function that maps every bundle position in a text through `mapJson` and, with `runtimeMapJson`
 * (the map of the runtime script this worker's isolates run, sandbox-api/runtime/build.ts), every
 * position of the provided sandbox-api modules in the runtime script (`sandbox-runtime.js:2445:23`
 * → `sandbox-api/index.ts:110:21`, as when each bundle carried its copy); positions it cannot map
 * stay as they are. The runtime's frame that runs a bundle's top level (setEntry) is dropped like
 * the wrapper's. Without maps the text is returned unchanged. Maps are parsed on first use.
 */
export function createStackMapper(
  integration: string,
  mapJson: string | undefined,
  runtimeMapJson?: string,
): (text: string) => string {
  if (mapJson === undefined && runtimeMapJson === undefined) return (text) => text;
  const filename = scriptFilename(integration);
  const pattern = new RegExp(`${escapeRegExp(filename)}:(\\d+):(\\d+)`, 'g');
  const runtimePattern = new RegExp(`${escapeRegExp(RUNTIME_FILENAME)}:(\\d+):(\\d+)`, 'g');
  // Anonymous frames left unmapped are the bundle's own wrapper (no source line): noise, dropped.
  const wrapperFrame = new RegExp(`\\n\\s+at ${escapeRegExp(filename)}:\\d+:\\d+(?=\\n|$)`, 'g');
  const entryFrame = new RegExp(`\\n\\s+at setEntry \\(${escapeRegExp(RUNTIME_FILENAME)}:\\d+:\\d+\\)(?=\\n|$)`, 'g');
  const bundleMap = mapJson === undefined ? () => null : lazyMap(mapJson);
  const runtimeMap = runtimeMapJson === undefined ? () => null : lazyMap(runtimeMapJson);
  return (text) => {
    const ours = text.includes(filename);
    const runtime = runtimeMapJson !== undefined && text.includes(RUNTIME_FILENAME);
    if (!ours && !runtime) return text;
    let budget = MAX_MAPPED_POSITIONS;
    let mapped = text;
    if (ours) {
      const sourceMap = bundleMap();
      if (sourceMap !== null) {
        mapped = mapped.replace(pattern, (whole, line: string, column: string) => {
          if (budget-- <= 0) return whole;
          const found = lookUp(sourceMap, line, column);
          return found === null ? whole : `${found.source}:${found.at}`;
        });
        mapped = mapped.replace(wrapperFrame, '');
      }
    }
    if (runtime) {
      const sourceMap = runtimeMap();
      if (sourceMap !== null) {
        mapped = mapped.replace(runtimePattern, (whole, line: string, column: string) => {
          if (budget-- <= 0) return whole;
          const found = lookUp(sourceMap, line, column);
          const label = found === null ? null : providedLabel(found.source);
          return label === null ? whole : `${label}:${found!.at}`;
        });
        mapped = mapped.replace(entryFrame, '');
      }
    }
    return mapped;
  };
}

/**
 * The guest's part of an error's stack as isolated-vm hands it to the worker: the first line and
 * the guest's frames (and the runtime's marker before frames the guest set itself), never what
 * follows `<isolated-vm boundary>` (the worker's own frames and paths).
 */
export function guestStack(stack: string): string {
  const [header = '', ...rest] = stack.split('\n');
  const frames: string[] = [];
  for (const line of rest) {
    if (line.includes('<isolated-vm boundary>')) break;
    if (line === FRAMES_SET_BY_INTEGRATION || (/^\s+at /.test(line) && !/file:|node:|\(\//.test(line)))
      frames.push(line);
  }
  return [header, ...frames].join('\n');
}

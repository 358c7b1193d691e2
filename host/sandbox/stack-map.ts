// Rewrites positions in an integration's bundle (`integration:<name>:228:37`, as V8 prints them in
// stack traces) into the author's terms (`src/index.ts:6:11`) with the bundle's source map. Runs
// in the sandbox worker on text the guest produced; the guest never sees the map or this code.

import { SourceMap } from 'node:module';

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

/**
 * A function that maps every bundle position in a text through `mapJson`; positions it cannot map
 * stay as they are. Without a map the text is returned unchanged. The map is parsed on first use.
 */
export function createStackMapper(integration: string, mapJson: string | undefined): (text: string) => string {
  if (mapJson === undefined) return (text) => text;
  const filename = scriptFilename(integration);
  const pattern = new RegExp(`${escapeRegExp(filename)}:(\\d+):(\\d+)`, 'g');
  // Anonymous frames left unmapped are the bundle's own wrapper (no source line): noise, dropped.
  const wrapperFrame = new RegExp(`\\n\\s+at ${escapeRegExp(filename)}:\\d+:\\d+(?=\\n|$)`, 'g');
  let map: SourceMap | null | undefined;
  const load = (): SourceMap | null => {
    if (map === undefined) {
      try {
        map = new SourceMap(JSON.parse(mapJson));
      } catch {
        map = null; // a broken map costs the mapping, never the log line
      }
    }
    return map;
  };
  return (text) => {
    if (!text.includes(filename)) return text;
    const sourceMap = load();
    if (sourceMap === null) return text;
    let budget = MAX_MAPPED_POSITIONS;
    const mapped = text.replace(pattern, (whole, line: string, column: string) => {
      if (budget-- <= 0) return whole;
      // V8 prints 1-based lines and columns; the map's entries are 0-based.
      const generatedLine = Number(line) - 1;
      const generatedColumn = Number(column) - 1;
      const entry = sourceMap.findEntry(generatedLine, generatedColumn) as { generatedLine?: number; generatedColumn?: number; originalSource?: string; originalLine?: number; originalColumn?: number };
      // Only a mapping on the same generated line says anything: the wrapper's own lines have none.
      if (entry.generatedLine !== generatedLine || typeof entry.originalSource !== 'string' || entry.originalLine === undefined || entry.originalColumn === undefined) return whole;
      return `${entry.originalSource}:${entry.originalLine + 1}:${entry.originalColumn + (generatedColumn - (entry.generatedColumn ?? generatedColumn)) + 1}`;
    });
    return mapped.replace(wrapperFrame, '');
  };
}

/**
 * The guest's part of an error's stack as isolated-vm hands it to the worker: the first line and
 * the guest's frames, never what follows `<isolated-vm boundary>` (the worker's own frames and paths).
 */
export function guestStack(stack: string): string {
  const [header = '', ...rest] = stack.split('\n');
  const frames: string[] = [];
  for (const line of rest) {
    if (line.includes('<isolated-vm boundary>')) break;
    if (/^\s+at /.test(line) && !/file:|node:|\(\//.test(line)) frames.push(line);
  }
  return [header, ...frames].join('\n');
}

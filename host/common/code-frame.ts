// The one shape of a problem found in a source file (a script, a manifest): the headline
// `file:line:col: error: message` and a frame of the source line with a caret under the column.
// Pure formatting: decides nothing, and shows source text only with control characters escaped.

import { sanitizeLogText } from './log-text.ts';

/** Where in a file: line and column 1-based, in characters; the line's text; how many characters the problem spans. */
export interface SourcePosition {
  line: number;
  column: number;
  lineText: string;
  length?: number;
}

/** Characters of a long source line (minified code) shown around the column. */
const FRAME_WIDTH = 100;

/** `file:line:col: error: message`; `code` (e.g. `TS2322`) follows the severity, as tsc writes it. */
export function formatLocated(
  file: string,
  at: SourcePosition,
  severity: 'error' | 'warning',
  message: string,
  code?: string,
): string {
  return `${file}:${at.line}:${at.column}: ${severity}${code === undefined ? '' : ` ${code}`}: ${message}`;
}

/**
 * Two lines: the source line after its number, and a caret (`^~~`) under the span; none for an empty or withheld line
 * ('').
 */
export function codeFrame(at: SourcePosition): string[] {
  if (at.lineText.trim() === '') return [];
  const text = at.lineText.replace(/\r$/, '');
  let start = 0;
  // A line too long to read whole is shown around the column, ellipses marking the cuts.
  if (text.length > FRAME_WIDTH)
    start = Math.max(0, Math.min(at.column - 1 - FRAME_WIDTH / 2, text.length - FRAME_WIDTH));
  const shown = text.slice(start, start + FRAME_WIDTH);
  const before = start > 0 ? '…' : '';
  const after = start + FRAME_WIDTH < text.length ? '…' : '';
  const offset = Math.max(0, Math.min(at.column - 1 - start, shown.length));
  // Escapes widen what they replace: the caret is placed under the escaped text, tabs kept as tabs.
  const pad = sanitizeLogText(before + shown.slice(0, offset)).replace(/[^\t]/g, ' ');
  const span = Math.max(1, Math.min(at.length ?? 1, shown.length - offset));
  const number = String(at.line);
  return [
    `  ${number} | ${sanitizeLogText(before + shown + after)}`,
    `  ${' '.repeat(number.length)} | ${pad}^${'~'.repeat(span - 1)}`,
  ];
}

/** The line `lineNumber` (1-based) of `text`, or '' past its end. */
export function lineOf(text: string, lineNumber: number): string {
  return text.split('\n')[lineNumber - 1]?.replace(/\r$/, '') ?? '';
}

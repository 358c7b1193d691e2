// Turns a YAML parser's complaint about a manifest into a problem at its real cause where that can
// be told: a quoted value or a `[…]`/`{…}` never closed makes the parser complain lines later
// (often "deficient indentation"), so the quote or bracket that opened it is named instead. Pure; a line under
// `secrets:` is never quoted (it may hold a literal value), so such a problem has no code frame.

import { lineOf, type SourcePosition } from '../common/code-frame.ts';

export interface YamlProblem {
  message: string;
  at: SourcePosition;
}

interface Opening {
  /** A quote, or the bracket of a flow collection. */
  char: '"' | "'" | '[' | '{';
  line: number;
  column: number;
}

const CLOSING = { '[': ']', '{': '}', '"': '"', "'": "'" } as const;

/** A quote starts a quoted scalar only where a value starts (line start, after `key:`, `- `, `[`, `{`, `,`, `?`). */
const VALUE_START = /(^|[:\-[{,?])\s*$/;
/** A block scalar header (`key: |`, `- >-`): the lines indented below it are text, not YAML. */
const BLOCK_SCALAR = /(^|[:-]\s)\s*[|>][-+0-9]*\s*(#.*)?$/;

/**
 * The quoted scalar, else the outermost flow collection, still open at (line, column), both
 * 1-based: scanned from the start of the text with YAML's quoting rules (`\"` escapes in double
 * quotes, `''` in single ones, `#` comments, block scalars skipped). Undefined when the position is
 * inside neither.
 */
export function openingAt(text: string, line: number, column: number): Opening | undefined {
  const lines = text.split('\n');
  let open: Opening | undefined;
  const flows: Opening[] = [];
  let blockIndent: number | undefined;
  for (let index = 0; index < Math.min(line, lines.length); index++) {
    const raw = lines[index].replace(/\r$/, '');
    const last = index === line - 1 ? Math.min(column - 1, raw.length) : raw.length;
    const indent = raw.length - raw.trimStart().length;
    if (open === undefined && blockIndent !== undefined) {
      if (raw.trim() === '' || indent > blockIndent) continue;
      blockIndent = undefined;
    }
    for (let i = 0; i < last; i++) {
      const char = raw[i];
      if (open !== undefined) {
        if (open.char === '"' && char === '\\') i++;
        else if (open.char === "'" && char === "'" && raw[i + 1] === "'") i++;
        else if (char === open.char) open = undefined;
        continue;
      }
      if (char === '#' && (i === 0 || /\s/.test(raw[i - 1]))) break;
      const starts = VALUE_START.test(raw.slice(0, i));
      if ((char === '"' || char === "'") && starts) open = { char, line: index + 1, column: i + 1 };
      else if ((char === '[' || char === '{') && (starts || flows.length > 0))
        flows.push({ char, line: index + 1, column: i + 1 });
      else if (flows.length > 0 && char === CLOSING[flows.at(-1)!.char]) flows.pop();
    }
    if (open === undefined && flows.length === 0 && BLOCK_SCALAR.test(raw)) blockIndent = indent;
  }
  return open ?? flows[0];
}

/**
 * The problem for a parse failure `reason` at `mark` (0-based, as js-yaml gives it): at the quote
 * that opened an unterminated quoted value when the failure lies inside one, else where the parser
 * stopped.
 */
export function describeYamlError(text: string, reason: string, mark: { line: number; column: number }): YamlProblem {
  const line = mark.line + 1;
  const column = mark.column + 1;
  const open = openingAt(text, line, column);
  if (open !== undefined && open.line < line) {
    const what = { '"': 'double-quoted value', "'": 'single-quoted value', '[': '[ list', '{': '{ mapping' }[open.char];
    return {
      message:
        `invalid YAML: the ${what} that starts here is never closed (the parser read ` +
        `on to line ${line}: ${reason}); end it with ${CLOSING[open.char]}`,
      at: { line: open.line, column: open.column, lineText: shownLine(text, open.line) },
    };
  }
  return { message: `invalid YAML: ${reason}`, at: { line, column, lineText: shownLine(text, line) } };
}

/** The line for the code frame; '' (no frame) for a line inside the top-level `secrets` mapping. */
function shownLine(text: string, line: number): string {
  const lines = text
    .split('\n')
    .slice(0, line)
    .map((raw) => raw.replace(/\r$/, ''));
  const section = lines.findLast((raw) => /^[^\s#]/.test(raw));
  return section !== undefined && /^["']?secrets["']?\s*:/.test(section) ? '' : lineOf(text, line);
}

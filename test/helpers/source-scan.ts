// Reading TypeScript source as code only, for rules the suite checks on host/: comments blanked,
// the text of strings, templates and regular expressions blanked (delimiters kept), every offset
// and line unchanged. A lexer, not a parser: enough to find operators and their operands.

const REGEX_BEFORE = new Set([...'(,=:[!&|?{};+-*%<>~^']);
const REGEX_AFTER_WORDS = new Set([
  'return',
  'typeof',
  'case',
  'in',
  'of',
  'void',
  'delete',
  'throw',
  'new',
  'else',
  'do',
  'yield',
  'await',
]);

/** The source with comments and literal text replaced by spaces (newlines kept). */
export function codeOnly(source: string): string {
  const out = source.split('');
  const blank = (from: number, to: number) => {
    for (let i = from; i < to; i++) if (out[i] !== '\n') out[i] = ' ';
  };
  /** Brace depths at which an open template resumes when its `${` closes. */
  const templates: number[] = [];
  let depth = 0;
  let i = 0;
  const previousSignificant = (at: number): string => {
    let j = at - 1;
    while (j >= 0 && /\s/.test(out[j])) j--;
    if (j < 0) return '';
    if (/[\w$]/.test(out[j])) {
      let k = j;
      while (k > 0 && /[\w$]/.test(out[k - 1])) k--;
      return out.slice(k, j + 1).join('');
    }
    return out[j];
  };
  const scanTemplate = (start: number): number => {
    // From just after a backtick or a closing `}` of a substitution; returns the index after the template part.
    let j = start;
    while (j < source.length) {
      if (source[j] === '\\') {
        j += 2;
        continue;
      }
      if (source[j] === '`') {
        blank(start, j);
        return j + 1;
      }
      if (source[j] === '$' && source[j + 1] === '{') {
        blank(start, j);
        templates.push(depth);
        depth++;
        return j + 2;
      }
      j++;
    }
    blank(start, j);
    return j;
  };
  while (i < source.length) {
    const char = source[i];
    const next = source[i + 1];
    if (char === '/' && next === '/') {
      const end = source.indexOf('\n', i);
      const stop = end === -1 ? source.length : end;
      blank(i, stop);
      i = stop;
    } else if (char === '/' && next === '*') {
      const end = source.indexOf('*/', i + 2);
      const stop = end === -1 ? source.length : end + 2;
      blank(i, stop);
      i = stop;
    } else if (char === "'" || char === '"') {
      let j = i + 1;
      while (j < source.length && source[j] !== char && source[j] !== '\n') j += source[j] === '\\' ? 2 : 1;
      blank(i + 1, j);
      i = j + 1;
    } else if (char === '`') {
      i = scanTemplate(i + 1);
    } else if (char === '{') {
      depth++;
      i++;
    } else if (char === '}') {
      depth--;
      if (templates.length > 0 && templates.at(-1) === depth) {
        templates.pop();
        i = scanTemplate(i + 1);
      } else i++;
    } else if (char === '/') {
      const before = previousSignificant(i);
      if (before === '' || REGEX_BEFORE.has(before) || REGEX_AFTER_WORDS.has(before)) {
        let j = i + 1;
        let inClass = false;
        while (j < source.length && source[j] !== '\n') {
          if (source[j] === '\\') j++;
          else if (source[j] === '[') inClass = true;
          else if (source[j] === ']') inClass = false;
          else if (source[j] === '/' && !inClass) break;
          j++;
        }
        blank(i + 1, j);
        i = j + 1;
      } else i++;
    } else i++;
  }
  return out.join('');
}

const OPEN = '([{';
const CLOSE = ')]}';

/** The operand ending just before `end`: back to an unbalanced bracket or a separator at depth 0. */
export function operandBefore(code: string, end: number): string {
  let depth = 0;
  let i = end - 1;
  for (; i >= 0; i--) {
    const char = code[i];
    if (CLOSE.includes(char)) depth++;
    else if (OPEN.includes(char)) {
      if (depth === 0) break;
      depth--;
    } else if (depth === 0 && (/[,;=&|?:\n]/.test(char) || (char === '>' && code[i - 1] === '='))) break;
  }
  return code
    .slice(i + 1, end)
    .trim()
    .replace(/^(return|await|throw|case)\s+/, '');
}

/** The operand starting at `start`: up to an unbalanced bracket or a separator at depth 0. */
export function operandAfter(code: string, start: number): string {
  let depth = 0;
  let i = start;
  for (; i < code.length; i++) {
    const char = code[i];
    if (OPEN.includes(char)) depth++;
    else if (CLOSE.includes(char)) {
      if (depth === 0) break;
      depth--;
    } else if (depth === 0 && /[,;&|?:\n]/.test(char)) break;
    else if (depth === 0 && (char === '=' || char === '!') && code[i + 1] === '=') break;
  }
  return code.slice(start, i).trim();
}

/** The argument list of a call whose `(` is just before `start`, without its closing `)`. */
export function argumentsAfter(code: string, start: number): string {
  let depth = 0;
  let i = start;
  for (; i < code.length; i++) {
    if (OPEN.includes(code[i])) depth++;
    else if (CLOSE.includes(code[i])) {
      if (depth === 0) break;
      depth--;
    }
  }
  return code.slice(start, i).trim();
}

/** 1-based line of an offset. */
export function lineOf(code: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset; i++) if (code[i] === '\n') line++;
  return line;
}

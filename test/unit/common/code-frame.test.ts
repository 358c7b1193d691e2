// The code frame under a located problem: the line after its number, a caret under the column
// (tabs kept, escapes accounted for), long lines cut around the column.
import { describe, expect, it } from 'vitest';
import { codeFrame, formatLocated, lineOf } from '../../../host/common/code-frame.ts';

describe('code frames', () => {
  it('puts the caret under the column, spanning the length', () => {
    expect(formatLocated('src/a.ts', { line: 12, column: 7, lineText: 'const x = ;' }, 'error', 'Unexpected ";"')).toBe(
      'src/a.ts:12:7: error: Unexpected ";"',
    );
    expect(codeFrame({ line: 12, column: 11, lineText: 'const x = ;', length: 1 })).toEqual([
      '  12 | const x = ;',
      '     |           ^',
    ]);
    expect(codeFrame({ line: 3, column: 7, lineText: 'const name = 1;', length: 4 })).toEqual([
      '  3 | const name = 1;',
      '    |       ^~~~',
    ]);
  });

  it('keeps tabs and escapes control characters without moving the caret off its character', () => {
    expect(codeFrame({ line: 1, column: 3, lineText: '\t\u001bx' })).toEqual(['  1 | \t\\x1bx', '    | \t    ^']);
  });

  it('cuts a long line around the column', () => {
    const [text, caret] = codeFrame({ line: 1, column: 500, lineText: `${'a'.repeat(499)}X${'b'.repeat(500)}` });
    expect(text.length).toBeLessThan(120);
    expect(text[caret.indexOf('^')]).toBe('X');
  });

  it('reads a line of a text', () => {
    expect(lineOf('a\r\nb\nc', 2)).toBe('b');
    expect(lineOf('a', 5)).toBe('');
  });
});

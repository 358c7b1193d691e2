// The JSON depth pre-check scans text without parsing it: it must track strings exactly (escaped
// quotes and backslashes included), or a crafted string before the deep part would hide the nesting
// from it and hand a too-deep document to the recursive code behind it.
import { describe, expect, it } from 'vitest';
import { jsonTextTooDeep, MAX_JSON_DEPTH, valueTooDeep } from '../../../host/common/json-depth.ts';

const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

describe('jsonTextTooDeep', () => {
  it('accepts the limit and refuses one level more', () => {
    expect(jsonTextTooDeep(nested(MAX_JSON_DEPTH))).toBe(false);
    expect(jsonTextTooDeep(nested(MAX_JSON_DEPTH + 1))).toBe(true);
  });

  it.each([
    ['an escaped quote', String.raw`"\""`],
    ['an escaped quote between letters', String.raw`"a\"b"`],
    ['two escaped quotes', String.raw`"\"\""`],
    ['an escaped backslash then an escaped quote', String.raw`"\\\""`],
    ['a unicode-escaped quote', String.raw`"\u0022"`],
    ['an escaped quote as a key', String.raw`{"\"":1}`],
  ])('refuses a deep document after a string with %s', (_what, before) => {
    const text = `[${before},${nested(MAX_JSON_DEPTH + 10)}]`;
    expect(() => JSON.parse(text)).not.toThrow();
    expect(jsonTextTooDeep(text)).toBe(true);
  });

  it('sees a string ending in an escaped backslash as ended (brackets after it count)', () => {
    const text = String.raw`["\\",` + nested(MAX_JSON_DEPTH + 1) + ']';
    expect(() => JSON.parse(text)).not.toThrow();
    expect(jsonTextTooDeep(text)).toBe(true);
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    const text = JSON.stringify({ a: `\\"${'['.repeat(1000)}"\\` });
    expect(jsonTextTooDeep(text)).toBe(false);
  });

  it('agrees with the parsed value on documents mixing strings and nesting', () => {
    for (const depth of [MAX_JSON_DEPTH - 1, MAX_JSON_DEPTH, MAX_JSON_DEPTH + 1]) {
      let value: unknown = ['"', '\\', '\\"', '[[[', ']]]'];
      for (let level = 1; level < depth; level++) value = level % 2 ? { '"[': value } : ['\\', value];
      expect(jsonTextTooDeep(JSON.stringify(value))).toBe(valueTooDeep(value));
    }
  });
});

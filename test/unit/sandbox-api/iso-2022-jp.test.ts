// The runtime's ISO-2022-JP decoder (escape sequences in the isolate, JIS X 0208 from the host's
// EUC-JP): Node as the oracle for well-formed text, the standard's error recovery where ICU differs,
// and streams split anywhere decoding like the whole.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createTextDecoding } from '../../../host/bridge/text-decoding.ts';
import { createEncoding } from '../../../sandbox-api/runtime/modules/encoding.ts';

const encoding = createEncoding({ decodeText: createTextDecoding() });
const decoder = (fatal = false) => encoding.createDecoder('iso-2022-jp', fatal, false);

const ESC = 0x1b;
// Well-formed segments: each switches mode, then holds characters that mode maps.
const segment = fc.oneof(
  fc
    .array(fc.integer({ min: 0x20, max: 0x7e }), { minLength: 1, maxLength: 6 })
    .map((text) => [ESC, 0x28, 0x42, ...text]),
  fc
    .array(fc.integer({ min: 0x20, max: 0x7e }), { minLength: 1, maxLength: 6 })
    .map((text) => [ESC, 0x28, 0x4a, ...text]),
  fc
    .array(fc.integer({ min: 0x21, max: 0x5f }), { minLength: 1, maxLength: 6 })
    .map((text) => [ESC, 0x28, 0x49, ...text]),
  // Rows 16 to 47: the first level of kanji, mapped alike by every JIS X 0208 table.
  fc
    .array(fc.tuple(fc.integer({ min: 0x30, max: 0x4e }), fc.integer({ min: 0x21, max: 0x7e })), {
      minLength: 1,
      maxLength: 4,
    })
    .map((pairs) => [ESC, 0x24, 0x42, ...pairs.flat()]),
);
const wellFormed = fc
  .array(segment, { minLength: 1, maxLength: 5 })
  .map((segments) => Uint8Array.from([...segments.flat(), ESC, 0x28, 0x42]));

function streamed(bytes: Uint8Array, cuts: number[]): string {
  const points = [...new Set(cuts.map((cut) => Math.min(cut, bytes.length)))].sort((a, b) => a - b);
  const d = decoder();
  let out = '';
  let from = 0;
  for (const point of points) {
    out += d.decode(bytes.subarray(from, point), true);
    from = point;
  }
  return out + d.decode(bytes.subarray(from), false);
}

describe('ISO-2022-JP (runtime)', () => {
  it('decodes well-formed text like Node', () => {
    fc.assert(
      fc.property(wellFormed, (bytes) => {
        expect(decoder().decode(bytes, false)).toBe(new TextDecoder('iso-2022-jp').decode(bytes));
      }),
      { numRuns: 500 },
    );
  });

  it('recovers from bad escape sequences and bytes as the standard says', () => {
    const cases: [number[], string][] = [
      [[ESC, 0x24], '\ufffd$'],
      [[0x50, ESC, 0x24, 0x50], 'P\ufffd$P'],
      [[ESC, 0x28, 0x49, 0x0d, 0x0e, 0x0f, 0x10], '\ufffd\ufffd\ufffd\ufffd'],
      [[ESC, 0x28, 0x4a, 0x5c, 0x7e], '\u00a5\u203e'],
      [[ESC, 0x24, 0x42, 0x30, ESC, 0x28, 0x42, 0x41], '\ufffdA'],
      [[ESC, 0x24, 0x42, 0x30], '\ufffd'],
      [[ESC, 0x28, 0x42, ESC, 0x28, 0x42, 0x41], '\ufffdA'],
      [[0x80, 0x41], '\ufffdA'],
      // A pair that JIS X 0208 leaves empty (row 2, cell 15).
      [[ESC, 0x24, 0x42, 0x22, 0x2f], '\ufffd'],
    ];
    for (const [bytes, expected] of cases)
      expect(decoder().decode(Uint8Array.from(bytes), false), JSON.stringify(bytes)).toBe(expected);
  });

  it('decodes any bytes split anywhere into a stream like the whole', () => {
    const bytes = fc.oneof(
      wellFormed,
      fc
        .uint8Array({ maxLength: 24 })
        .map((random) =>
          random.map((byte) => [ESC, 0x24, 0x28, 0x42, 0x49, 0x4a, 0x40, 0x30, 0x21, 0x7e, 0x0e, 0x80][byte % 12]),
        ),
    );
    fc.assert(
      fc.property(bytes, fc.array(fc.integer({ min: 0, max: 40 }), { maxLength: 6 }), (input, cuts) => {
        expect(streamed(input, cuts)).toBe(decoder().decode(input, false));
      }),
      { numRuns: 1000 },
    );
  });

  it('throws when fatal, then starts over', () => {
    const d = decoder(true);
    expect(() => d.decode(Uint8Array.from([ESC, 0x24]), false)).toThrow(TypeError);
    expect(() => d.decode(Uint8Array.from([ESC, 0x24, 0x42, 0x22, 0x2f]), false)).toThrow(TypeError);
    expect(d.decode(Uint8Array.from([ESC, 0x24]), true)).toBe('');
    expect(d.decode(Uint8Array.from([0x42, 0x30, 0x21]), false)).toBe('亜');
  });
});

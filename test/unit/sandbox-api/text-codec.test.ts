// UTF-8 encoding/decoding and TextEncoder/TextDecoder (runtime, with its encoding module and the
// host's text decoding, outside an isolate) against Node's as the oracle.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createTextDecoding } from '../../../host/bridge/text-decoding.ts';
import { createEncoding } from '../../../sandbox-api/runtime/modules/encoding.ts';
import { TextEncoder as RuntimeEncoder, createTextDecoderClass } from '../../../sandbox-api/runtime/text-codec.ts';
import { Utf8Decoder, utf8Decode, utf8Encode, utf8Length } from '../../../sandbox-api/runtime/utf8.ts';

let loads = 0;
const encoding = createEncoding({ decodeText: createTextDecoding() });
const RuntimeDecoder = createTextDecoderClass(() => {
  loads++;
  return encoding;
});
const strings = fc.string({
  unit: fc.constantFrom('a', 'é', '€', '\ud83d\ude00', '\ud800', '\udc00', '\u0000', '\uffff'),
  maxLength: 16,
});
const bytes = fc
  .uint8Array({ maxLength: 24 })
  .chain((random) =>
    fc.constantFrom(
      random,
      Uint8Array.from([0xef, 0xbb, 0xbf, ...random]),
      Uint8Array.from([0xf0, 0x9f, ...random]),
      Uint8Array.from([0xe0, 0x80, 0xed, 0xa0, 0x80, ...random]),
    ),
  );

describe('UTF-8 (runtime)', () => {
  it('encodes any string (lone surrogates → U+FFFD) like Node', () => {
    fc.assert(
      fc.property(fc.oneof(strings, fc.string({ unit: 'binary' })), (input) => {
        const expected = new TextEncoder().encode(input);
        expect(utf8Encode(input)).toEqual(expected);
        expect(utf8Length(input)).toBe(expected.length);
      }),
      { numRuns: 3000 },
    );
  });

  it('decodes any bytes (replacement, BOM, fatal) like Node', () => {
    fc.assert(
      fc.property(bytes, fc.boolean(), (input, ignoreBOM) => {
        expect(utf8Decode(input, false, ignoreBOM)).toBe(new TextDecoder('utf-8', { ignoreBOM }).decode(input));
        let nodeFatal: string;
        try {
          nodeFatal = new TextDecoder('utf-8', { fatal: true }).decode(input);
        } catch {
          nodeFatal = 'throws';
        }
        let ours: string;
        try {
          ours = utf8Decode(input, true);
        } catch {
          ours = 'throws';
        }
        expect(ours).toBe(nodeFatal);
      }),
      { numRuns: 5000 },
    );
  });

  it('encodeInto writes whole characters only, like Node', () => {
    fc.assert(
      fc.property(strings, fc.integer({ min: 0, max: 20 }), (input, size) => {
        const ours = new Uint8Array(size);
        const node = new Uint8Array(size);
        expect(new RuntimeEncoder().encodeInto(input, ours)).toEqual(new TextEncoder().encodeInto(input, node));
        expect(ours).toEqual(node);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('UTF-8 streaming (runtime)', () => {
  it('decodes bytes split anywhere into chunks like one whole decode', () => {
    fc.assert(
      fc.property(
        bytes,
        fc.array(fc.integer({ min: 0, max: 30 }), { maxLength: 6 }),
        fc.boolean(),
        (input, cuts, ignoreBOM) => {
          const points = [...new Set(cuts.map((cut) => Math.min(cut, input.length)))].sort((a, b) => a - b);
          const decoder = new Utf8Decoder(false, ignoreBOM);
          let out = '';
          let from = 0;
          for (const point of points) {
            out += decoder.decode(input.subarray(from, point), true);
            from = point;
          }
          out += decoder.decode(input.subarray(from), false);
          expect(out).toBe(new TextDecoder('utf-8', { ignoreBOM }).decode(input));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('strips a byte order mark split across chunks, once per stream', () => {
    const decoder = new RuntimeDecoder();
    expect(decoder.decode(new Uint8Array([0xef]), { stream: true })).toBe('');
    expect(decoder.decode(new Uint8Array([0xbb]), { stream: true })).toBe('');
    expect(decoder.decode(new Uint8Array([0xbf, 0x41, 0xef, 0xbb, 0xbf]), { stream: true })).toBe('A\ufeff');
    expect(decoder.decode()).toBe('');
    // A new stream begins after a call without `stream`: its BOM is stripped again.
    expect(decoder.decode(new Uint8Array([0xef, 0xbb, 0xbf, 0x42]))).toBe('B');
  });

  it('throws on a fatal error and then decodes the next call as a new stream', () => {
    const decoder = new RuntimeDecoder('utf-8', { fatal: true });
    expect(decoder.decode(new Uint8Array([0xe2, 0x82]), { stream: true })).toBe('');
    expect(() => decoder.decode(new Uint8Array([0x41]), { stream: true })).toThrow(TypeError);
    // Nothing of the broken sequence is left: the next lone continuation byte is an error of its own.
    expect(() => decoder.decode(new Uint8Array([0xac]), { stream: true })).toThrow(TypeError);
    expect(decoder.decode(new Uint8Array([0xe2]), { stream: true })).toBe('');
    expect(() => decoder.decode()).toThrow(TypeError);
    expect(decoder.decode(new Uint8Array([0xe2, 0x82, 0xac]))).toBe('€');
  });
});

describe('TextDecoder (runtime)', () => {
  it('resolves labels: ASCII whitespace trimmed, ASCII case folded, canonical names', () => {
    expect(new RuntimeDecoder('latin2').encoding).toBe('iso-8859-2');
    expect(new RuntimeDecoder(' \t\n\f\rUTF8\r').encoding).toBe('utf-8');
    expect(new RuntimeDecoder('iso-8859-1').encoding).toBe('windows-1252');
    expect(new RuntimeDecoder('UTF-16').encoding).toBe('utf-16le');
    expect(new RuntimeDecoder('x-user-defined').encoding).toBe('x-user-defined');
    for (const label of [
      '\u00a0utf-8',
      'utf-8\u000b',
      '\u212aoi8-r',
      'replacement',
      'iso-2022-kr',
      'utf-32',
      'klingon',
      '',
    ]) {
      expect(() => new RuntimeDecoder(label), label).toThrow(RangeError);
    }
  });

  it('loads the encoding module only for labels that are not UTF-8', () => {
    const before = loads;
    new RuntimeDecoder();
    new RuntimeDecoder('unicode-1-1-utf-8');
    expect(loads).toBe(before);
    new RuntimeDecoder('latin1');
    expect(loads).toBe(before + 1);
  });

  it('decodes other encodings through the host, one-shot and streaming', () => {
    expect(new RuntimeDecoder('utf-16le').decode(new Uint8Array([0x41, 0x00, 0x42, 0x00]))).toBe('AB');
    expect(new RuntimeDecoder('windows-1252').decode(new Uint8Array([0x80, 0xe9]))).toBe('€é');
    const sjis = new RuntimeDecoder('shift_jis');
    expect(sjis.decode(new Uint8Array([0x82]), { stream: true })).toBe('');
    expect(sjis.decode(new Uint8Array([0xa0, 0x82]), { stream: true })).toBe('あ');
    expect(sjis.decode(new Uint8Array([0xa2]))).toBe('い');
    const jis = new RuntimeDecoder('iso-2022-jp');
    expect(jis.decode(new Uint8Array([0x1b, 0x24]), { stream: true })).toBe('');
    expect(jis.decode(new Uint8Array([0x42, 0x30, 0x21]), { stream: true })).toBe('亜');
    expect(jis.decode(new Uint8Array([0x30, 0x21]))).toBe('亜');
    const utf16 = new RuntimeDecoder('utf-16be', { fatal: true });
    expect(utf16.decode(new Uint8Array([0xd8, 0x3d, 0xde]), { stream: true })).toBe('');
    expect(utf16.decode(new Uint8Array([0x00]))).toBe('😀');
    expect(() => utf16.decode(new Uint8Array([0x00]))).toThrow(TypeError);
  });

  it('exposes fatal and ignoreBOM, and throws on fatal errors', () => {
    const decoder = new RuntimeDecoder('utf-8', { fatal: true, ignoreBOM: true });
    expect([decoder.fatal, decoder.ignoreBOM]).toEqual([true, true]);
    expect(() => decoder.decode(new Uint8Array([0xff]))).toThrow(TypeError);
    expect(decoder.decode(new Uint8Array([0xef, 0xbb, 0xbf, 0x41]))).toBe('\ufeffA');
  });

  it('takes BufferSources only, and options as dictionaries', () => {
    const decoder = new RuntimeDecoder();
    expect(decoder.decode()).toBe('');
    expect(decoder.decode(new Uint16Array([0x4241]))).toBe('AB');
    expect(decoder.decode(new DataView(new Uint8Array([0x43]).buffer))).toBe('C');
    expect(() => decoder.decode(null as never)).toThrow(TypeError);
    expect(() => decoder.decode('abc' as never)).toThrow(TypeError);
    expect(() => decoder.decode(new Uint8Array(1), 1 as never)).toThrow(TypeError);
    expect(() => new RuntimeDecoder('utf-8', 'fatal' as never)).toThrow(TypeError);
    expect(new RuntimeDecoder('utf-8', null as never).fatal).toBe(false);
    const gone = new Uint8Array([0x41, 0x42]);
    structuredClone(gone.buffer, { transfer: [gone.buffer] });
    expect([decoder.decode(gone), decoder.decode(gone.buffer), new RuntimeDecoder('big5').decode(gone)]).toEqual([
      '',
      '',
      '',
    ]);
  });
});

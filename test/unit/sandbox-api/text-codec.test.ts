// UTF-8 encoding/decoding and TextEncoder/TextDecoder (runtime) against Node's as the oracle.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TextEncoder as RuntimeEncoder, createTextDecoderClass } from '../../../sandbox-api/runtime/text-codec.ts';
import { utf8Decode, utf8Encode, utf8Length } from '../../../sandbox-api/runtime/utf8.ts';
import { decodeWithNode } from './harness.ts';

const RuntimeDecoder = createTextDecoderClass(decodeWithNode);
const strings = fc.string({ unit: fc.constantFrom('a', 'é', '€', '\ud83d\ude00', '\ud800', '\udc00', '\u0000', '\uffff'), maxLength: 16 });
const bytes = fc.uint8Array({ maxLength: 24 }).chain((random) =>
  fc.constantFrom(random, Uint8Array.from([0xef, 0xbb, 0xbf, ...random]), Uint8Array.from([0xf0, 0x9f, ...random]), Uint8Array.from([0xe0, 0x80, 0xed, 0xa0, 0x80, ...random])),
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

describe('TextDecoder (runtime)', () => {
  it('decodes UTF-8 locally and other encodings through decodeText', () => {
    expect(new RuntimeDecoder().decode(new Uint8Array([0xe2, 0x82, 0xac]))).toBe('€');
    expect(new RuntimeDecoder('utf-16le').decode(new Uint8Array([0x41, 0x00, 0x42, 0x00]))).toBe('AB');
    expect(new RuntimeDecoder('iso-8859-1').encoding).toBe('windows-1252');
    expect(new RuntimeDecoder('UTF8').encoding).toBe('utf-8');
    expect(new RuntimeDecoder().decode()).toBe('');
    expect(new RuntimeDecoder().decode(new Uint16Array([0x4241]))).toBe('AB');
  });

  it('exposes fatal and ignoreBOM, and throws on fatal errors', () => {
    const decoder = new RuntimeDecoder('utf-8', { fatal: true, ignoreBOM: true });
    expect([decoder.fatal, decoder.ignoreBOM]).toEqual([true, true]);
    expect(() => decoder.decode(new Uint8Array([0xff]))).toThrow(TypeError);
    expect(decoder.decode(new Uint8Array([0xef, 0xbb, 0xbf, 0x41]))).toBe('\ufeffA');
  });

  it('rejects unknown labels with RangeError and streaming with TypeError', () => {
    expect(() => new RuntimeDecoder('klingon')).toThrow(RangeError);
    expect(() => new RuntimeDecoder().decode(new Uint8Array(1), { stream: true })).toThrow(/streaming/);
  });
});

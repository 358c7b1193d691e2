// TextEncoderStream and TextDecoderStream in a real isolate (the encoding-streams module, loaded on
// first use): chunks split anywhere, the flush at the end, errors that error the stream.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness } from './harness.ts';

let harness: Harness;

beforeAll(async () => {
  harness = await Harness.create();
  // Writes the chunks, closes, and collects what the readable side gives (or the error's name).
  await harness.evaluate(`globalThis.pipeThrough = async (stream, chunks) => {
    const writer = stream.writable.getWriter();
    const reader = stream.readable.getReader();
    const out = [];
    const reading = (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        out.push(value instanceof Uint8Array ? Array.from(value) : value);
      }
    })();
    for (const chunk of chunks) writer.write(chunk).catch(() => {});
    writer.close().catch(() => {});
    try { await reading; } catch (error) { out.push(error.name); }
    return out;
  }; undefined`);
});
afterAll(() => harness?.dispose());

describe('TextDecoderStream', () => {
  it('decodes UTF-8 split inside characters, a BOM only at the start, and flushes an unfinished sequence', async () => {
    const out = await harness.evaluate(`pipeThrough(new TextDecoderStream(), [
      new Uint8Array([0xef, 0xbb]), new Uint8Array([0xbf, 0x41, 0xe2]), new Uint8Array([0x82]), new Uint8Array([0xac,
        0xf0, 0x9f]).buffer,
    ])`);
    expect(out).toEqual(['A', '€', '\ufffd']);
  });

  it('decodes a stateful legacy encoding across chunks through the host', async () => {
    const out = await harness.evaluate(
      `pipeThrough(new TextDecoderStream('sjis'), [new Uint8Array([0x82]), new Uint8Array([0xa0, 0x82]), new ` +
        `DataView(new Uint8Array([0xa2]).buffer)])`,
    );
    expect(out).toEqual(['あ', 'い']);
  });

  it('has the decoder attributes and the stream pair, named as the standard spells them', async () => {
    const result = await harness.evaluate(`(() => {
      const stream = new TextDecoderStream('UTF-16', { fatal: true, ignoreBOM: true });
      return [stream.encoding, stream.fatal, stream.ignoreBOM, stream.readable instanceof ReadableStream,
        stream.writable instanceof WritableStream,
        Object.prototype.toString.call(stream), TextDecoderStream.name, new TextDecoderStream().encoding,
        (() => { try { new TextDecoderStream('utf-7'); } catch (error) { return error.name; } })(),
        (() => { try { Object.getOwnPropertyDescriptor(TextDecoderStream.prototype, 'encoding').get.call({});
          } catch (error) { return error.name; } })()];
    })()`);
    expect(result).toEqual([
      'utf-16le',
      true,
      true,
      true,
      true,
      '[object TextDecoderStream]',
      'TextDecoderStream',
      'utf-8',
      'RangeError',
      'TypeError',
    ]);
  });

  it('errors the stream on invalid data when fatal, and on a chunk that is not a BufferSource', async () => {
    expect(
      await harness.evaluate(
        `pipeThrough(new TextDecoderStream('utf-8', { fatal: true }), [new Uint8Array([0x41]), new ` +
          `Uint8Array([0xff])])`,
      ),
    ).toEqual(['A', 'TypeError']);
    expect(await harness.evaluate(`pipeThrough(new TextDecoderStream(), ['text'])`)).toEqual(['TypeError']);
    expect(await harness.evaluate(`pipeThrough(new TextDecoderStream(), [undefined])`)).toEqual(['TypeError']);
    expect(
      await harness.evaluate(
        `pipeThrough(new TextDecoderStream('utf-8', { fatal: true }), [new Uint8Array([0xe2, 0x82])])`,
      ),
    ).toEqual(['TypeError']);
  });
});

describe('TextEncoderStream', () => {
  it('encodes chunks to UTF-8, pairing a surrogate pair split across chunks', async () => {
    const out = await harness.evaluate(`pipeThrough(new TextEncoderStream(), ['a\\ud83d', '\\ude00b', '', 42])`);
    expect(out).toEqual([[0x61], [0xf0, 0x9f, 0x98, 0x80, 0x62], [0x34, 0x32]]);
  });

  it('turns lone surrogates into U+FFFD, a high one at the very end too', async () => {
    const out = await harness.evaluate(`pipeThrough(new TextEncoderStream(), ['\\udc00x\\ud800', 'y\\ud800'])`);
    expect(out).toEqual([
      [0xef, 0xbf, 0xbd, 0x78],
      [0xef, 0xbf, 0xbd, 0x79],
      [0xef, 0xbf, 0xbd],
    ]);
  });

  it('says utf-8, and errors the stream on a chunk that cannot become a string', async () => {
    const result = await harness.evaluate(
      `[new TextEncoderStream().encoding, Object.prototype.toString.call(new TextEncoderStream()), ` +
        `TextEncoderStream.length]`,
    );
    expect(result).toEqual(['utf-8', '[object TextEncoderStream]', 0]);
    expect(await harness.evaluate(`pipeThrough(new TextEncoderStream(), ['ok', Symbol('no')])`)).toEqual([
      [0x6f, 0x6b],
      'TypeError',
    ]);
  });
});

// CompressionStream and DecompressionStream in a real isolate: the Compression standard's formats,
// round trips that Node's zlib agrees with, errors for bad input, and the standard's names.
import { gunzipSync, gzipSync, inflateRawSync, deflateSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { Harness } from './harness.ts';

let harness: Harness | undefined;
afterEach(() => harness?.dispose());

/** Guest code: pipes `bytes` through a (de)compression stream, answers the output's bytes. */
const through = (kind: string, format: string, bytes: string) => `(async () => {
  const input = ${bytes};
  const stream = new Response(input).body.pipeThrough(new ${kind}(${JSON.stringify(format)}));
  return Array.from(new Uint8Array(await new Response(stream).arrayBuffer()));
})()`;

describe('compression streams', () => {
  it('compress in each format so that zlib reads it back', async () => {
    harness = await Harness.create();
    const text = 'hello, streams '.repeat(1000);
    const gz = await harness.evaluate<number[]>(
      through('CompressionStream', 'gzip', `new TextEncoder().encode(${JSON.stringify(text)})`),
    );
    expect(gunzipSync(Buffer.from(gz)).toString()).toBe(text);
    const raw = await harness.evaluate<number[]>(
      through('CompressionStream', 'deflate-raw', `new TextEncoder().encode(${JSON.stringify(text)})`),
    );
    expect(inflateRawSync(Buffer.from(raw)).toString()).toBe(text);
    expect(gz.length).toBeLessThan(text.length / 10);
  });

  it('decompress what zlib made, in several chunks and past one call’s share of output', async () => {
    harness = await Harness.create();
    const big = Buffer.alloc(3 * 1024 * 1024, 'z');
    const deflated = Array.from(deflateSync(big));
    const length = await harness.evaluate<number>(`(async () => {
      const input = new Uint8Array(${JSON.stringify(deflated)});
      const stream = new ReadableStream({ start(c) { for (let i = 0; i < input.length; i += 7) c.enqueue(input.slice(i,
        i + 7)); c.close(); } });
      const out = await new Response(stream.pipeThrough(new DecompressionStream('deflate'))).arrayBuffer();
      return new Uint8Array(out).every((byte) => byte === 0x7a) ? out.byteLength : -1;
    })()`);
    expect(length).toBe(big.length);
  });

  it('fail the stream with a TypeError on data that is not the format', async () => {
    harness = await Harness.create();
    const outcome = await harness.evaluate<string>(`(async () => {
      const stream = new Response(new Uint8Array([1, 2, 3, 4, 5, 6, 7,
        8])).body.pipeThrough(new DecompressionStream('gzip'));
      try { await new Response(stream).arrayBuffer(); return 'decoded'; } catch (error) { return error.name; }
    })()`);
    expect(outcome).toBe('TypeError');
  });

  it('refuse a format the standard does not name, and chunks that are not bytes', async () => {
    harness = await Harness.create();
    expect(
      await harness.evaluate(
        `(() => { try { new CompressionStream('brotli'); return 'made'; } catch (error) { return error.name; } })()`,
      ),
    ).toBe('TypeError');
    expect(
      await harness.evaluate(`(async () => {
        const { readable, writable } = new CompressionStream('gzip');
        const writer = writable.getWriter();
        const written = writer.write('text').then(() => 'written', (error) => error.name);
        readable.getReader().read().catch(() => undefined);
        return written;
      })()`),
    ).toBe('TypeError');
  });

  it('are named and tagged as the standard spells them', async () => {
    harness = await Harness.create();
    expect(
      await harness.evaluate(
        `[CompressionStream.name, DecompressionStream.name, Object.prototype.toString.call(new ` +
          `CompressionStream('gzip')), Object.prototype.toString.call(new DecompressionStream('deflate-raw'))]`,
      ),
    ).toEqual([
      'CompressionStream',
      'DecompressionStream',
      '[object CompressionStream]',
      '[object DecompressionStream]',
    ]);
  });

  it('round-trip through each other', async () => {
    harness = await Harness.create();
    const text = await harness.evaluate<string>(`(async () => {
      const input = new TextEncoder().encode('round trip '.repeat(5000));
      const stream = new Response(input).body.pipeThrough(new CompressionStream('deflate-raw'))
        .pipeThrough(new DecompressionStream('deflate-raw'));
      return new Response(stream).text();
    })()`);
    expect(text).toBe('round trip '.repeat(5000));
    expect(gzipSync(Buffer.from('x')).length).toBeGreaterThan(0);
  });
});

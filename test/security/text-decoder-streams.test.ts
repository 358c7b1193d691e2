// The host's text decoding as a lever: every TextDecoder encoding but UTF-8 decodes on the host,
// and a stream of a stateful one keeps a decoder there. A guest opening thousands of streams and
// abandoning them costs the host at most MAX_OPEN_STREAMS decoders per realm (a lost stream fails
// loudly, never decodes from a wrong state); large inputs decode whole; hostile arguments reach
// the host only as checked data, straight or from a forged caller.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { MAX_OPEN_STREAMS, createTextDecoding } from '../../host/bridge/text-decoding.ts';
import { startTestHost, endpointOf, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';

let host: TestHost;

beforeAll(async () => {
  host = await startTestHost({ dirs: ['fixtures/integrations', 'fixtures/hostile/text-decoder-streams'] });
});
afterAll(() => host?.close());

describe('text decoder streams', () => {
  it('keeps only the newest streams of a guest that opens thousands, and fails the lost ones loudly', async () => {
    const response = await fetch(endpointOf(host, 'text-decoder-streams'));
    expect(response.status).toBe(200);
    const seen = await response.json();
    expect(seen.newest).toEqual(Array(MAX_OPEN_STREAMS).fill('あ'));
    expect(seen.oldest).toBe('TypeError');
    expect(seen.reopened).toBe('TypeError');
    expect(seen.afterLoss).toBe('あ');
    expect(seen.whole).toBe(4 << 20);
    expect(seen.streamedLength).toBe(4 << 20);
    expect(seen.hostile).toEqual({
      proxyInput: 'TypeError',
      fakeView: 'TypeError',
      throwingOptions: 'RangeError',
      labelObject: 'euc-kr',
      protoLabel: 'RangeError',
      constructorLabel: 'RangeError',
    });
  }, 60_000);

  it('answers a forged caller with data, never a host error, and bounds its streams', () => {
    const decodeText = createTextDecoding();
    const bytes = new Uint8Array([0x41]);
    const call = (...args: unknown[]) => (decodeText as (...a: unknown[]) => unknown)(...args);
    for (const args of [
      [null, 'big5', false, false, 0, true],
      ['AB', 'big5', false, false, 0, true],
      [bytes, 'utf-8', false, false, 0, true], // UTF-8 is the isolate's own; not a host encoding
      [bytes, 'UTF-7', false, false, 0, true],
      [bytes, '__proto__', false, false, 0, true],
      [bytes, 'big5', 'yes', false, 0, true],
      [bytes, 'big5', false, false, -1, true],
      [bytes, 'big5', false, false, 1.5, true],
      [bytes, 'big5', false, false, Number.MAX_SAFE_INTEGER + 2, true],
      [bytes, 'big5', false, false, 1, 'no'],
    ]) {
      const result = call(...args) as { ok: boolean; code: string };
      expect(result.ok, JSON.stringify(args.slice(1))).toBe(false);
      expect(Object.keys(result).sort()).toEqual(['code', 'message', 'ok']);
    }
    for (let stream = 1; stream <= 10_000; stream++)
      expect(decodeText(new Uint8Array([0x82]), 'shift_jis', false, false, stream, false)).toEqual({
        ok: true,
        value: '',
      });
    // The newest streams go on; every older one was dropped, and a number already used cannot reopen.
    for (let stream = 10_000; stream > 10_000 - MAX_OPEN_STREAMS; stream--)
      expect(decodeText(new Uint8Array([0xa0]), 'shift_jis', false, false, stream, true)).toEqual({
        ok: true,
        value: 'あ',
      });
    expect(
      decodeText(new Uint8Array([0xa0]), 'shift_jis', false, false, 10_000 - MAX_OPEN_STREAMS, true),
    ).toMatchObject({ ok: false, code: 'stream_lost' });
    expect(decodeText(new Uint8Array([0xa0]), 'shift_jis', false, false, 1, false)).toMatchObject({
      ok: false,
      code: 'stream_lost',
    });
    expect(decodeText(new Uint8Array([0x82, 0xa0]), 'shift_jis', false, false, 10_001, true)).toEqual({
      ok: true,
      value: 'あ',
    });
  });

  it('leaves the host and its neighbour answering', async () => {
    await expectHostHealthy(host);
  });
});

// Bodies as streams and the host's zlib as levers (fixtures/hostile/stream-levers): a zip bomb
// costs the host one call's share of output at a time; a guest opening many compression streams
// keeps only the newest; a response stream of non-bytes, or without end, is cut (the second by the
// stream deadline, with its isolate reset); a fetch body left unread has its connection closed. And
// the new host functions, called by a forged caller, answer with data and hold nothing unbounded.
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MAX_INPUT_PER_CALL,
  MAX_OPEN_COMPRESSIONS,
  MAX_OUTPUT_PER_CALL,
  createCompressionTable,
} from '../../host/bridge/compression.ts';
import { FetchTable, MAX_OPEN_FETCHES } from '../../host/sandbox/fetch-table.ts';
import { moduleLoader, moduleSources } from '../../host/sandbox/realm-primitives.ts';
import { buildRuntimeModules } from '../../sandbox-api/runtime/build.ts';
import { endpointOf, startTestHost, waitFor, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';

const STREAM_TIMEOUT_MS = 2_000;
let host: TestHost;
let upstream: http.Server;
let upstreamUrl = '';
/** Sockets of the upstream's unfinished answers, and whether each was closed by the host. */
const unfinished: Socket[] = [];

beforeAll(async () => {
  upstream = http.createServer((req, res) => {
    // Sends a first part and never ends: only the host closing the connection ends it.
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    res.write(Buffer.alloc(1024, 1));
    unfinished.push(req.socket);
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const port = (upstream.address() as AddressInfo).port;
  upstreamUrl = `http://127.0.0.1:${port}/endless`;
  host = await startTestHost({
    dirs: ['fixtures/integrations', 'fixtures/hostile/stream-levers'],
    allowEgress: [`127.0.0.1:${port}`],
    limits: { streamTimeoutMs: STREAM_TIMEOUT_MS, dispatchTimeoutMs: 30_000 },
  });
});

afterAll(async () => {
  await host?.close();
  upstream.closeAllConnections();
  await new Promise<void>((resolve) => upstream.close(() => resolve()));
});

const attack = (query: string) => fetch(`${endpointOf(host, 'stream-levers')}?${query}`);

describe('streams and zlib as levers', () => {
  it('reads a zip bomb a slice at a time: its first chunk comes out, and nothing else is held', async () => {
    const response = await attack('mode=bomb');
    const { first } = await response.json();
    expect(first).toBeGreaterThan(0);
    expect(first).toBeLessThanOrEqual(MAX_OUTPUT_PER_CALL);
    await expectHostHealthy(host);
  }, 60_000);

  it('keeps only the newest compression streams of a guest that opens many: the oldest fails loudly', async () => {
    const seen = await (await attack('mode=many')).json();
    expect(seen).toEqual({ oldest: 'TypeError', newest: 'ok 5' });
  });

  it('cuts a response stream whose chunk is not bytes after what was sent', async () => {
    const response = await attack('mode=not-bytes');
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('first\n');
    await expect(reader.read()).rejects.toThrow();
    await expectHostHealthy(host);
  });

  it('cuts a response stream without end at the stream deadline and resets its isolate', async () => {
    const response = await attack('mode=endless');
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('first\n');
    await expect(reader.read()).rejects.toThrow();
    await waitFor(() =>
      host.logs.some((line) =>
        line.includes(`still being produced after ${STREAM_TIMEOUT_MS} ms: the isolate was reset`),
      ),
    );
    await expectHostHealthy(host);
  }, 60_000);

  it('closes the connection of a fetch body the integration left unread once its work is over', async () => {
    const before = unfinished.length;
    const response = await attack(`mode=abandon&upstream=${encodeURIComponent(upstreamUrl)}`);
    expect(await response.json()).toEqual({ status: 200 });
    await waitFor(() => unfinished.length > before);
    await waitFor(() => unfinished[before].destroyed || unfinished[before].readyState === 'closed');
  });
});

describe('the streaming host functions called by a forged caller', () => {
  it(
    'compression streams: refused formats, types and sizes; a bomb handed out a share at a time; the oldest closed ' +
      'past the bound',
    async () => {
      const table = createCompressionTable();
      const call = (...args: unknown[]) => (table.open as (...a: unknown[]) => unknown)(...args);
      for (const args of [
        ['br', true],
        ['__proto__', false],
        [{ toString: () => 'gzip' }, true],
        ['gzip', 'yes'],
      ]) {
        expect(call(...args), JSON.stringify(args)).toMatchObject({ ok: false, code: 'TypeError' });
      }
      const opened = table.open('gzip', true);
      if (!opened.ok) throw new Error('no stream');
      for (const [id, input, finish] of [
        [999, null, true],
        ['1', null, true],
        [opened.value, 'bytes', false],
        [opened.value, null, 'yes'],
        [opened.value, new Uint8Array(MAX_INPUT_PER_CALL + 1), false],
      ]) {
        expect(await table.write(id, input, finish), JSON.stringify([id, typeof input, finish])).toMatchObject({
          ok: false,
          code: 'TypeError',
        });
      }
      const bomb = gzipSync(Buffer.alloc(32 * 1024 * 1024));
      expect(bomb.length).toBeLessThan(MAX_INPUT_PER_CALL);
      let total = 0;
      let calls = 0;
      let result = await table.write(opened.value, new Uint8Array(bomb), false);
      for (;;) {
        if (!result.ok) throw new Error(result.message);
        expect(result.value.output.byteLength).toBeLessThanOrEqual(MAX_OUTPUT_PER_CALL);
        total += result.value.output.byteLength;
        calls++;
        if (!result.value.more) break;
        result = await table.write(opened.value, new Uint8Array(0), false);
      }
      for (
        result = await table.write(opened.value, null, true);
        result.ok;
        result = await table.write(opened.value, null, true)
      ) {
        total += result.value.output.byteLength;
        if (!result.value.more) break;
      }
      expect(total).toBe(32 * 1024 * 1024);
      expect(calls).toBeGreaterThanOrEqual((32 * 1024 * 1024) / MAX_OUTPUT_PER_CALL - 1);
      const ids: number[] = [];
      for (let i = 0; i < MAX_OPEN_COMPRESSIONS + 3; i++) {
        const next = table.open('deflate', false);
        if (next.ok) ids.push(next.value);
      }
      expect(await table.write(ids[0], new Uint8Array([1]), false)).toMatchObject({ ok: false, code: 'TypeError' });
      expect(await table.write(ids.at(-1), new Uint8Array([1]), false)).toMatchObject({ ok: true });
      table.closeAll();
      expect(await table.write(ids.at(-1), null, true)).toMatchObject({ ok: false });
    },
  );

  it('fetch bodies: unknown and malformed ids read nothing, and the table is bounded', async () => {
    const table = new FetchTable();
    for (const id of [0, -1, 1.5, '1', null, {}, Number.MAX_SAFE_INTEGER + 2]) {
      expect(await table.read(id), String(id)).toMatchObject({ ok: false, code: 'TypeError' });
      expect(() => table.cancel(id)).not.toThrow();
      expect(table.begin(id)).toBeNull();
    }
    for (let id = 1; id <= MAX_OPEN_FETCHES; id++) expect(table.begin(id)).not.toBeNull();
    expect(table.begin(MAX_OPEN_FETCHES + 1)).toBeNull();
    expect(table.begin(1)).toBeNull();
    const signal = table.begin(undefined);
    expect(signal?.aborted).toBe(false);
    table.close();
    expect(table.size).toBe(0);
    // A fetch in flight when its isolate goes is aborted; calls after that read and cancel nothing.
    const fresh = new FetchTable();
    const inFlight = fresh.begin(1);
    fresh.close();
    expect(inFlight?.aborted).toBe(true);
    expect(await fresh.read(1)).toMatchObject({ ok: false, code: 'TypeError' });
    expect(() => fresh.cancel(1)).not.toThrow();
  });

  it('runtime modules: only the runtime’s own names, each once', async () => {
    const load = moduleLoader(moduleSources(await buildRuntimeModules()));
    for (const name of ['__proto__', 'constructor', 'toString', '../streams', '', 1, null])
      expect(() => load(name), String(name)).toThrow(TypeError);
    expect(typeof load('streams')).toBe('string');
    expect(() => load('streams')).toThrow(TypeError);
  });
});

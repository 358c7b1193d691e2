// Races on the streaming bridge (fixtures/hostile/stream-bridge-races): fetches aborted while the
// host resolves their name leave no connection behind that could bring the worker down later; a
// stream's cancel callback runs inside its event's work and time, never while the integration is
// idle; a fetched body handed to the host cannot be read again; and the fetch limit stays per event
// when one event streams its body beside waitUntil work.
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointOf, startTestHost, waitFor, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy, neighbourAnswers } from '../helpers/host-health.ts';

const STREAM_TIMEOUT_MS = 3_000;
let host: TestHost;
/** Holds every connection open until the test closes it (the peer that ends a leaked request). */
let holder: net.Server;
const held: net.Socket[] = [];
let upstream: http.Server;
let upstreamUrl = '';
let upstreamHits = 0;

beforeAll(async () => {
  holder = net.createServer((socket) => void held.push(socket));
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  upstream = http.createServer((req, res) => {
    upstreamHits++;
    if (req.url !== '/slow') return res.end('hello');
    // Still arriving when the integration answers: the host sends it on.
    res.write('hel');
    setTimeout(() => res.end('lo'), 200);
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/`;
  host = await startTestHost({
    dirs: ['fixtures/integrations', 'fixtures/hostile/stream-bridge-races'],
    workers: 1,
    allowEgress: [
      `127.0.0.1:${(holder.address() as AddressInfo).port}`,
      `127.0.0.1:${(upstream.address() as AddressInfo).port}`,
    ],
    limits: { streamTimeoutMs: STREAM_TIMEOUT_MS },
  });
});

afterAll(async () => {
  await host?.close();
  for (const socket of held) socket.destroy();
  await new Promise<void>((resolve) => holder.close(() => resolve()));
  upstream.closeAllConnections();
  await new Promise<void>((resolve) => upstream.close(() => resolve()));
});

const attack = (query: string, init?: RequestInit) =>
  fetch(`${endpointOf(host, 'stream-bridge-races')}?${query}`, init);
const linesOf = (text: string) =>
  host.logs.filter((line) => line.includes('[stream-bridge-races') && line.includes(text));

describe('races on the streaming bridge', () => {
  it('leaves no connection of a fetch aborted during its name lookup, and counts no egress refusal', async () => {
    const target = `http://localhost:${(holder.address() as AddressInfo).port}/`;
    const response = await attack(`mode=abort&n=8&target=${encodeURIComponent(target)}`);
    expect(await response.json()).toEqual({ outcomes: Array(8).fill('AbortError') });
    // Whatever reached the peer was closed by the host; the peer closing its side now finds nothing
    // left open that would fail the worker.
    await waitFor(() =>
      held.every((socket) => socket.destroyed || socket.readyState === 'closed' || socket.readableEnded),
    );
    for (const socket of held) socket.destroy();
    const neighbour = await neighbourAnswers(host);
    expect(neighbour.status).toBe(200);
    expect(host.logs.filter((line) => /sandbox worker \d+ died/.test(line))).toEqual([]);
    expect(linesOf('egress refused')).toEqual([]);
    await expectHostHealthy(host);
  });

  it('runs a cancel callback inside its event when the client leaves, its fetch allowed and logged there', async () => {
    const hits = upstreamHits;
    const controller = new AbortController();
    const response = await attack(`mode=cancel&spin=0&upstream=${encodeURIComponent(upstreamUrl)}`, {
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('first\n');
    controller.abort();
    await waitFor(() => linesOf('cancel callback fetched: 200').length > 0);
    expect(upstreamHits).toBe(hits + 1);
    for (const line of [...linesOf('cancel callback runs'), ...linesOf('cancel callback fetched')])
      expect(line).toMatch(/\[stream-bridge-races evt_[0-9a-f]+\]/);
  });

  it('refuses to read again a fetched body the integration answered with', async () => {
    const response = await attack(`mode=reread&upstream=${encodeURIComponent(`${upstreamUrl}slow`)}`);
    expect(await response.text()).toBe('hello');
    await waitFor(() => linesOf('reread:').length > 0);
    expect(linesOf('reread:').map((line) => line.slice(line.indexOf('reread:')))).toEqual(['reread: TypeError']);
  });

  it('allows 50 fetches to an event that streams its body ' +
    'beside waitUntil work, not one allowance for each', async () => {
    const response = await attack(`mode=allowance&count=80&upstream=${encodeURIComponent(upstreamUrl)}`);
    expect(await response.json()).toEqual({ ok: 50, refused: 30 });
  }, 60_000);
  // Last: the overrun moves the integration to the offenders' worker.
  it('resets the isolate of a cancel callback that never returns at the stream deadline', async () => {
    const before = host.logs.length;
    const controller = new AbortController();
    const response = await attack('mode=cancel&spin=-1', { signal: controller.signal });
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('first\n');
    controller.abort();
    await waitFor(() =>
      host.logs
        .slice(before)
        .some((line) => line.includes(`still being produced after ${STREAM_TIMEOUT_MS} ms: the isolate was reset`)),
    );
    await expectHostHealthy(host);
  }, 60_000);
});

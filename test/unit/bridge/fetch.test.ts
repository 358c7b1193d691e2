import { describe, it, expect, beforeAll, afterAll, vi } from 'vitest';
import http from 'node:http';
import net from 'node:net';
import zlib from 'node:zlib';
import type { AddressInfo, LookupFunction } from 'node:net';
import { performFetch, type FetchBridgeOptions } from '../../../host/bridge/fetch.ts';
import { createEgressPolicy } from '../../../host/bridge/egress-policy.ts';
import { lookupWithOverrides } from '../../../host/bridge/egress-resolve.ts';
import type { BridgeRequest } from '../../../sandbox-api/runtime/contract.ts';

let server: http.Server;
let base = '';
const seen: { method: string; url: string; body: string; headers: http.IncomingHttpHeaders }[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        body: Buffer.concat(chunks).toString(),
        headers: req.headers,
      });
      if (req.url === '/redirect') return res.writeHead(302, { location: '/target' }).end();
      if (req.url === '/loop') return res.writeHead(302, { location: '/loop' }).end();
      if (req.url === '/to-metadata') return res.writeHead(302, { location: 'http://169.254.169.254/latest' }).end();
      if (req.url === '/gzip') {
        res.writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'text/plain' });
        return res.end(zlib.gzipSync(Buffer.alloc(64 * 1024, 'a')));
      }
      if (req.url === '/bomb') {
        res.writeHead(200, { 'content-encoding': 'gzip' });
        return res.end(zlib.gzipSync(Buffer.alloc(4 * 1024 * 1024, 0)));
      }
      if (req.url === '/slow') return setTimeout(() => res.end('late'), 2_000);
      if (req.url?.startsWith('/slow-hop/')) {
        const left = Number(req.url.split('/')[2]);
        return setTimeout(
          () => (left > 0 ? res.writeHead(302, { location: `/slow-hop/${left - 1}` }).end() : res.end('arrived')),
          150,
        );
      }
      if (req.url === '/host') return res.end(String(req.headers.host));
      res.writeHead(200, { 'content-type': 'application/json', 'x-echo': req.method ?? '' });
      res.end(JSON.stringify({ path: req.url }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const request = (url: string, init: Partial<BridgeRequest> = {}): BridgeRequest => ({
  url,
  method: 'GET',
  headers: [],
  body: null,
  redirect: 'follow',
  ...init,
});
const options = (overrides: Partial<FetchBridgeOptions> = {}): FetchBridgeOptions => ({
  policy: createEgressPolicy({ allow: ['127.0.0.1'] }),
  timeoutMs: 5_000,
  maxResponseBytes: 1024 * 1024,
  maxRedirects: 5,
  ...overrides,
});

describe('performFetch', () => {
  it('sends method, headers and body to an allowed destination and returns the response', async () => {
    const result = await performFetch(
      request(`${base}/echo`, { method: 'POST', headers: [['x-test', '1']], body: new TextEncoder().encode('hi') }),
      options(),
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.status).toBe(200);
    expect(JSON.parse(new TextDecoder().decode(result.value.body))).toEqual({ path: '/echo' });
    expect(result.value.headers).toContainEqual(['x-echo', 'POST']);
    expect(seen.at(-1)).toMatchObject({ method: 'POST', body: 'hi' });
    expect(seen.at(-1)?.headers['x-test']).toBe('1');
  });

  it('refuses loopback when it is not allowed', async () => {
    const refusals: string[] = [];
    const result = await performFetch(
      request(`${base}/`),
      options({ policy: createEgressPolicy({ allow: [] }), onRefusal: (_u, r) => refusals.push(r) }),
    );
    expect(result).toMatchObject({ ok: false, code: 'TypeError' });
    expect(!result.ok && result.message).toMatch(/loopback/);
    expect(refusals).toHaveLength(1);
  });

  it('follows redirects and re-checks each hop', async () => {
    const result = await performFetch(request(`${base}/redirect`), options());
    expect(result.ok && result.value.redirected).toBe(true);
    expect(result.ok && result.value.url).toBe(`${base}/target`);
  });

  it('refuses a redirect to the metadata address without connecting to it', async () => {
    const connect = vi.spyOn(net.Socket.prototype, 'connect');
    const result = await performFetch(request(`${base}/to-metadata`), options());
    const targets = connect.mock.calls.map((call) => JSON.stringify(call[0]));
    connect.mockRestore();
    expect(!result.ok && result.message).toMatch(/169\.254\.169\.254.*link-local/);
    expect(targets.some((t) => t.includes('169.254'))).toBe(false);
  });

  it('returns the redirect itself in manual mode', async () => {
    const result = await performFetch(request(`${base}/redirect`, { redirect: 'manual' }), options());
    expect(result.ok && result.value.status).toBe(302);
  });

  it('stops after the redirect limit', async () => {
    const result = await performFetch(request(`${base}/loop`), options({ maxRedirects: 3 }));
    expect(!result.ok && result.message).toMatch(/more than 3 redirects/);
  });

  it('decompresses gzip bodies', async () => {
    const result = await performFetch(request(`${base}/gzip`), options());
    expect(result.ok && result.value.body.length).toBe(64 * 1024);
    expect(result.ok && result.value.headers.some(([n]) => n === 'content-encoding')).toBe(false);
  });

  it('stops a gzip bomb at the decompressed byte cap', async () => {
    const result = await performFetch(request(`${base}/bomb`), options({ maxResponseBytes: 1024 * 1024 }));
    expect(!result.ok && result.message).toMatch(/exceeds 1048576 bytes/);
  });

  it('times out a slow destination', async () => {
    const result = await performFetch(request(`${base}/slow`), options({ timeoutMs: 200 }));
    expect(!result.ok && result.message).toMatch(/timed out after 200 ms/);
  });

  it('refuses a host name that resolves to a private address without opening a socket', async () => {
    const lookup = ((
      _host: string,
      _opts: unknown,
      callback: (e: null, a: { address: string; family: number }[]) => void,
    ) => callback(null, [{ address: '10.0.0.1', family: 4 }])) as unknown as LookupFunction;
    const connect = vi.spyOn(net.Socket.prototype, 'connect');
    const result = await performFetch(request('http://internal.example.test/'), options({ lookup }));
    const calls = connect.mock.calls.length;
    connect.mockRestore();
    expect(!result.ok && result.message).toMatch(/internal\.example\.test \(10\.0\.0\.1\) is private/);
    expect(calls).toBe(0);
  });

  it('refuses non-http schemes and URL credentials', async () => {
    expect(await performFetch(request('file:///etc/passwd'), options())).toMatchObject({
      ok: false,
      message: expect.stringMatching(/scheme/),
    });
    expect(await performFetch(request(`http://u:p@127.0.0.1:1/`), options())).toMatchObject({
      ok: false,
      message: expect.stringMatching(/credentials/),
    });
  });

  it('applies one deadline to the whole fetch, not to each redirect hop', async () => {
    const result = await performFetch(request(`${base}/slow-hop/4`), options({ timeoutMs: 400 }));
    expect(!result.ok && result.message).toMatch(/timed out after 400 ms/);
  });

  it('opens no socket for a fetch aborted while its host name resolves, and counts no refusal', async () => {
    const controller = new AbortController();
    const lookup = ((
      _host: string,
      _opts: unknown,
      callback: (e: null, a: { address: string; family: number }[]) => void,
    ) => {
      controller.abort();
      queueMicrotask(() => callback(null, [{ address: '127.0.0.1', family: 4 }]));
    }) as unknown as LookupFunction;
    const refusals: string[] = [];
    const connect = vi.spyOn(net.Socket.prototype, 'connect');
    const port = new URL(base).port;
    const result = await performFetch(
      request(`http://aborted.example.test:${port}/slow`),
      options({
        lookup,
        signal: controller.signal,
        streaming: true,
        onRefusal: (_url, reason) => refusals.push(reason),
      }),
    );
    const calls = connect.mock.calls.length;
    connect.mockRestore();
    expect(result).toEqual({ ok: false, code: 'TypeError', message: 'the request was aborted' });
    expect(calls).toBe(0);
    expect(refusals).toEqual([]);
  });

  it('sets Host from the URL, never from the guest', async () => {
    const result = await performFetch(request(`${base}/host`, { headers: [['Host', 'admin.internal']] }), options());
    expect(result.ok && new TextDecoder().decode(result.value.body)).toBe(base.slice('http://'.length));
  });
});

describe('the connect audit', () => {
  it('is told a literal destination before the socket connects', async () => {
    const audit: string[] = [];
    const result = await performFetch(
      request(`${base}/echo`),
      options({ onConnect: (address, port) => audit.push(`${address}:${port}`) }),
    );
    expect(result.ok).toBe(true);
    expect(audit).toEqual([base.slice('http://'.length)]);
  });

  it('is told the checked addresses a name was pinned to', async () => {
    const audit: string[] = [];
    const lookup = lookupWithOverrides({ 'receiver.test': ['10.0.0.1', '127.0.0.1'] });
    const port = new URL(base).port;
    const result = await performFetch(
      request(`http://receiver.test:${port}/echo`),
      options({ lookup, onConnect: (address, p) => audit.push(`${address}:${p}`) }),
    );
    expect(result.ok).toBe(true);
    // 10.0.0.1 was in the DNS answer but refused, so it was never handed to the socket.
    expect(audit.length).toBeGreaterThan(0);
    expect(new Set(audit)).toEqual(new Set([`127.0.0.1:${port}`]));
  });

  it('hears nothing of a refused redirect hop', async () => {
    const audit: string[] = [];
    const result = await performFetch(
      request(`${base}/to-metadata`),
      options({ onConnect: (address, port) => audit.push(`${address}:${port}`) }),
    );
    expect(result.ok).toBe(false);
    expect(audit).toEqual([base.slice('http://'.length)]);
  });
});

describe('lookupWithOverrides', () => {
  const answer = (lookup: LookupFunction, host: string, opts: { all?: boolean; family?: number }) =>
    new Promise<unknown>((resolve) =>
      lookup(host, opts as never, (error, address, family) =>
        resolve(error ? (error as NodeJS.ErrnoException).code : opts.all ? address : `${address}/${family}`),
      ),
    );

  it('answers pinned names from the map, in any case, and everything else from the fallback', async () => {
    const fallback = ((host: string, _o: unknown, cb: (e: null, a: string, f: number) => void) =>
      cb(null, `fallback-for-${host}`, 4)) as unknown as LookupFunction;
    const lookup = lookupWithOverrides({ 'metadata.test': ['169.254.169.254', 'fd00::1'] }, fallback);
    expect(await answer(lookup, 'METADATA.test', { all: true })).toEqual([
      { address: '169.254.169.254', family: 4 },
      { address: 'fd00::1', family: 6 },
    ]);
    expect(await answer(lookup, 'metadata.test', { family: 6 })).toBe('fd00::1/6');
    expect(await answer(lookup, 'other.test', {})).toBe('fallback-for-other.test/4');
  });

  it('answers ENOTFOUND when no pinned address has the asked family', async () => {
    const lookup = lookupWithOverrides({ 'v4only.test': ['10.0.0.1'] });
    expect(await answer(lookup, 'v4only.test', { family: 6 })).toBe('ENOTFOUND');
  });
});

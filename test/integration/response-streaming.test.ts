// Bodies as streams through the real host: a response body the integration produces reaches the
// client as it is produced, an outbound fetch's body reaches the integration as it arrives, a fetch
// body handed on unread goes out from the host, and every byte still counts against the limits.
// Each step waits on the other side (a gate of the test's loopback server), so a host that
// buffered a whole body would deadlock and fail instead of passing slowly.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointOf, startTestHost, waitFor, type TestHost } from '../helpers/host.ts';

const MAX_RESPONSE_BYTES = 1024 * 1024;
let host: TestHost;
let server: http.Server;
let base = '';
/** Requests the test server received, by path. */
const hits = new Map<string, number>();
/** Gates: a request to /gate/<name> waits until the test opens <name>. */
const gates = new Map<string, () => void>();
const opened = new Set<string>();
/** Requests to /hang/<name> that were never answered, by name: their sockets. */
const hanging = new Map<string, import('node:net').Socket>();
/** Upstreams that send their first part and wait for /signal/<name> before the rest. */
const signalled = new Map<string, () => void>();

function open(name: string): void {
  opened.add(name);
  gates.get(name)?.();
}

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const path = req.url ?? '';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const [, kind, name] = path.split('/');
    if (kind === 'gate') {
      if (opened.has(name)) return res.end('open');
      gates.set(name, () => res.end('open'));
      return;
    }
    if (kind === 'signal') {
      signalled.get(name)?.();
      return res.end('ok');
    }
    if (kind === 'staged') {
      // The first part now, the rest only once the integration says it has read the first.
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('part-1;');
      signalled.set(name, () => res.end('part-2;part-3'));
      return;
    }
    if (kind === 'hang') {
      // Never answers: only the host closing the connection ends it. Opens the gate of its name.
      hanging.set(name, req.socket);
      open(name);
      return;
    }
    if (kind === 'bytes') {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const total = Number(name);
      let sent = 0;
      const pump = () => {
        while (sent < total) {
          const size = Math.min(64 * 1024, total - sent);
          sent += size;
          if (!res.write(Buffer.alloc(size, 0x61))) return void res.once('drain', pump);
        }
        res.end();
      };
      return pump();
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  host = await startTestHost({
    dirs: ['test/fixtures/streaming'],
    allowEgress: [`127.0.0.1:${(server.address() as AddressInfo).port}`],
    limits: { maxResponseBytes: MAX_RESPONSE_BYTES, maxFetchResponseBytes: 4 * 1024 * 1024 },
  });
});

afterAll(async () => {
  await host?.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const call = (query: string, init?: RequestInit) => fetch(`${endpointOf(host, 'streamer')}?${query}`, init);

/** Reads a body chunk by chunk, as text. */
async function* chunksOf(response: Response): AsyncGenerator<string> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  for (let next = await reader.read(); !next.done; next = await reader.read())
    yield decoder.decode(next.value, { stream: true });
}

describe('a response body the integration streams', () => {
  it('reaches the client as it is produced: the second part is made only after the client has the first', async () => {
    const response = await call(`mode=produce&gate=${encodeURIComponent(`${base}/gate/produce`)}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain');
    expect(response.headers.get('content-length')).toBeNull();
    let text = '';
    for await (const chunk of chunksOf(response)) {
      text += chunk;
      // The integration waits on this gate before it produces the rest: a buffering host never gets here.
      if (text === 'first\n') open('produce');
    }
    expect(text).toBe('first\nsecond\n');
  });

  it('is cut off, not completed, once it passes the response limit', async () => {
    const chunks = MAX_RESPONSE_BYTES / (64 * 1024) + 4;
    const response = await call(`mode=big&chunks=${chunks}`);
    expect(response.status).toBe(200);
    await expect(response.arrayBuffer()).rejects.toThrow();
  });

  it('under the limit arrives whole', async () => {
    const response = await call('mode=big&chunks=4');
    expect((await response.arrayBuffer()).byteLength).toBe(4 * 64 * 1024);
  });

  it('that fails midway cuts the connection after what was sent', async () => {
    const response = await call('mode=fail');
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('first\n');
    await expect(
      (async () => {
        for (let next = await reader.read(); !next.done; next = await reader.read());
      })(),
    ).rejects.toThrow();
  });

  it('is cancelled in the integration when the client goes away', async () => {
    const controller = new AbortController();
    const response = await call(`mode=cancel&gate=${encodeURIComponent(`${base}/gate/cancelled`)}`, {
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('first\n');
    controller.abort();
    await waitFor(() => (hits.get('/gate/cancelled') ?? 0) > 0);
    open('cancelled');
  });

  it('is not sent for a HEAD request', async () => {
    const head = await call('mode=big&chunks=2', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });
});

describe('an outbound fetch body', () => {
  it('reaches the integration as it arrives: it reads the first part before the upstream sends the rest', async () => {
    const upstream = encodeURIComponent(`${base}/staged/relay`);
    const signal = encodeURIComponent(`${base}/signal/relay`);
    const response = await call(`mode=relay&upstream=${upstream}&signal=${signal}`);
    expect(await response.json()).toMatchObject({ text: 'part-1;part-2;part-3' });
  });

  it('handed back unread goes out from the host, whole', async () => {
    const response = await call(`mode=pass&upstream=${encodeURIComponent(`${base}/bytes/${600 * 1024}`)}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/octet-stream');
    expect((await response.arrayBuffer()).byteLength).toBe(600 * 1024);
  });

  it('wrapped in a new Response goes out whole with the new headers', async () => {
    const response = await call(`mode=rewrap&upstream=${encodeURIComponent(`${base}/bytes/${300 * 1024}`)}`);
    expect(response.headers.get('x-rewrapped')).toBe('yes');
    expect((await response.arrayBuffer()).byteLength).toBe(300 * 1024);
  });

  it('read whole with text() counts against the fetch body limit', async () => {
    const fits = await call(`mode=text&upstream=${encodeURIComponent(`${base}/bytes/${2 * 1024 * 1024}`)}`);
    expect(await fits.json()).toEqual({ length: 2 * 1024 * 1024 });
    const over = await call(`mode=text&upstream=${encodeURIComponent(`${base}/bytes/${5 * 1024 * 1024}`)}`);
    expect(over.status).toBe(500);
  });

  it('passed through counts against the response limit of the integration', async () => {
    const response = await call(`mode=pass&upstream=${encodeURIComponent(`${base}/bytes/${2 * 1024 * 1024}`)}`);
    expect(response.status).toBe(200);
    await expect(response.arrayBuffer()).rejects.toThrow();
  });
});

describe('an aborted outbound fetch', () => {
  it('rejects with an AbortError in the integration and closes its connection on the host', async () => {
    const upstream = encodeURIComponent(`${base}/hang/aborted`);
    const gate = encodeURIComponent(`${base}/gate/aborted`);
    const response = await call(`mode=abort&upstream=${upstream}&gate=${gate}`);
    expect(await response.json()).toEqual({ name: 'AbortError' });
    await waitFor(() => hanging.get('aborted')?.destroyed === true);
  });
});

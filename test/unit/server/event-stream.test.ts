// GET /v1/integrations/:name/events/stream: 404 before the stream for an unknown integration or
// installation, one `event: dispatch` message per new entry (only the followed integration and
// installation), keep-alive comments, a slow client dropped instead of buffered, a clean end.
import net from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EventLogEntry } from '../../../host/dispatch/event-log.ts';
import {
  ADMIN,
  ADMIN_TOKEN,
  createFakeServices,
  startApp,
  type FakeServices,
  type RunningApp,
} from './fake-services.ts';

let services: FakeServices;
let app: RunningApp;

beforeEach(async () => {
  services = createFakeServices();
  app = await startApp(services, {
    maxPublicBodyBytes: 1_048_576,
    maxEnvelopeBytes: 1_048_576,
    eventStream: { keepAliveMs: 100, maxBufferedBytes: 64 * 1024 },
  });
});
afterEach(async () => {
  await services.feed.close();
  await app.close();
});

function entry(overrides: Partial<EventLogEntry> = {}): EventLogEntry {
  return {
    eventId: `evt_${Math.random().toString(36).slice(2)}`,
    integration: 'hello',
    installationId: 'inst-1',
    type: 'fetch',
    status: 200,
    durationMs: 3,
    logs: [{ level: 'log', text: 'hi' }],
    createdAt: new Date().toISOString(),
    requestId: 'req12345',
    ...overrides,
  };
}

/** Reads a stream's text as it arrives; `until` waits for a pattern (no sleeps). */
async function follow(path: string) {
  const response = await fetch(`${app.url}${path}`, { headers: ADMIN });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let done = false;
  const waiters = new Set<() => void>();
  const pump = (async () => {
    for (;;) {
      const chunk = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (chunk.done) break;
      text += decoder.decode(chunk.value, { stream: true });
      waiters.forEach((wake) => wake());
    }
    done = true;
    waiters.forEach((wake) => wake());
  })();
  const until = (predicate: () => boolean, timeoutMs = 5_000) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => (clearInterval(poll), reject(new Error(`not seen in time; got:\n${text}`))),
        timeoutMs,
      );
      // Woken by arriving data, and polled for conditions on the host's side (followers).
      const poll = setInterval(() => check(), 20);
      const check = () => {
        if (predicate()) {
          clearTimeout(timer);
          clearInterval(poll);
          waiters.delete(check);
          resolve();
        }
      };
      waiters.add(check);
      check();
    });
  return { response, until, text: () => text, done: () => done, pump, cancel: () => reader.cancel() };
}

const messages = (text: string) =>
  [...text.matchAll(/^event: dispatch\ndata: (.*)\n\n/gm)].map((match) => JSON.parse(match[1]));

describe('GET /v1/integrations/:name/events/stream', () => {
  it('answers 404 as JSON before any stream for an unknown integration or installation', async () => {
    const unknown = await fetch(`${app.url}/v1/integrations/nope/events/stream`, { headers: ADMIN });
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error.code).toBe('ERR_INTEGRATION_NOT_FOUND');
    const foreign = await fetch(`${app.url}/v1/integrations/hello/events/stream?installation=inst-other`, {
      headers: ADMIN,
    });
    expect(foreign.status).toBe(404);
    expect((await foreign.json()).error.code).toBe('ERR_INSTALLATION_NOT_FOUND');
    expect(services.feed.followerCount()).toBe(0);
  });

  it('is for the admin only and refuses unknown parameters', async () => {
    expect((await fetch(`${app.url}/v1/integrations/hello/events/stream`)).status).toBe(401);
    const bad = await fetch(`${app.url}/v1/integrations/hello/events/stream?instalation=inst-1`, { headers: ADMIN });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.details).toEqual([
      { pointer: '/instalation', message: 'is not a parameter of the stream' },
    ]);
  });

  it('sends each new entry of the integration as one dispatch message, exactly the entry', async () => {
    const stream = await follow('/v1/integrations/hello/events/stream');
    expect(stream.response.status).toBe(200);
    expect(stream.response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(stream.response.headers.get('x-request-id')).toMatch(/\S/);
    await stream.until(() => stream.text().includes(': following hello\n\n'));
    const first = entry();
    const other = entry({ integration: 'other' });
    const second = entry({ installationId: 'inst-2', status: 500, errorCode: 'ERR_SANDBOX_TIMEOUT' });
    services.feed.publish(first);
    services.feed.publish(other);
    services.feed.publish(second);
    await stream.until(() => messages(stream.text()).length === 2);
    expect(messages(stream.text())).toEqual([first, second]);
    await stream.cancel();
  });

  it('follows one installation with ?installation=', async () => {
    const stream = await follow('/v1/integrations/hello/events/stream?installation=inst-1');
    await stream.until(() => stream.text().includes(': following'));
    const mine = entry();
    services.feed.publish(entry({ installationId: 'inst-2' }));
    services.feed.publish(mine);
    await stream.until(() => messages(stream.text()).length === 1);
    expect(messages(stream.text())).toEqual([mine]);
    await stream.cancel();
  });

  it('writes a keep-alive comment while nothing happens', async () => {
    const stream = await follow('/v1/integrations/hello/events/stream');
    await stream.until(() => stream.text().includes(': keep-alive\n\n'));
    await stream.cancel();
  });

  it('stops following when the client goes away', async () => {
    const stream = await follow('/v1/integrations/hello/events/stream');
    await stream.until(() => services.feed.followerCount() === 1);
    await stream.cancel();
    await stream.until(() => services.feed.followerCount() === 0);
  });

  it('ends the stream cleanly when the host shuts down', async () => {
    const stream = await follow('/v1/integrations/hello/events/stream');
    await stream.until(() => services.feed.followerCount() === 1);
    await services.feed.close();
    await stream.until(() => stream.done());
    await stream.pump;
    expect(stream.text()).toMatch(/^: following hello\n\n/);
  });

  it('disconnects a client that stops reading instead of buffering for it', async () => {
    // A raw socket that sends the request and never reads: the kernel buffers fill, then the host's.
    const { port } = new URL(app.url);
    const socket = net.connect(Number(port), '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    socket.write(
      `GET /v1/integrations/hello/events/stream HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN_TOKEN}\r\n\r\n`,
    );
    socket.pause();
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.on('error', () => undefined);
    const started = Date.now();
    while (services.feed.followerCount() === 0 && Date.now() - started < 5_000)
      await new Promise((resolve) => setImmediate(resolve));
    expect(services.feed.followerCount()).toBe(1);
    const big = entry({ logs: [{ level: 'log', text: 'x'.repeat(100_000) }] });
    // Far more than socket buffers hold: the host must give up on this client, not keep it all.
    for (let round = 0; round < 400 && services.feed.followerCount() > 0; round++) {
      services.feed.publish(big);
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(services.feed.followerCount()).toBe(0);
    socket.resume();
    await closed;
  }, 20_000);
});

// One delivery attempt against a loopback server: what is sent, how each failure is reported, and
// that the egress policy is applied at connect time. Only ever contacts 127.0.0.1.
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, LookupFunction } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEgressPolicy } from '../../../host/bridge/egress-policy.ts';
import { createDeliveryAgents, deliverAttempt, type DeliverOptions } from '../../../host/webhooks/deliver.ts';

const seen: { url: string; headers: http.IncomingHttpHeaders; body: string; remotePort?: number }[] = [];
let server: http.Server;
let base = '';

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      seen.push({
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
        remotePort: req.socket.remotePort,
      });
      if (req.url === '/redirect') return res.writeHead(302, { location: '/ok' }).end();
      if (req.url === '/unavailable') return res.writeHead(503).end('busy');
      if (req.url === '/hang') return;
      if (req.url === '/reset') return req.socket.destroy();
      if (req.url === '/big') return res.writeHead(200).end(Buffer.alloc(512 * 1024));
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));

const BODY = '{"eventId":"evt_1","type":"space_content_updated"}';
const options = (overrides: Partial<DeliverOptions> = {}): DeliverOptions => ({
  policy: createEgressPolicy({ allow: ['127.0.0.1'] }),
  timeoutMs: 2_000,
  ...overrides,
});
const lookupTo = (address: string): LookupFunction =>
  ((_host: string, _options: object, callback: (...args: unknown[]) => void) =>
    callback(null, [{ address, family: 4 }])) as LookupFunction;

describe('deliverAttempt', () => {
  it('POSTs the body as JSON with a fresh signature and a user agent', async () => {
    const now = 1_700_000_123_456;
    const result = await deliverAttempt(
      { url: `${base}/ok`, body: BODY, secrets: ['s1', 's0'] },
      options({ nowMs: () => now }),
    );
    expect(result).toMatchObject({ status: 200 });
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
    const request = seen.at(-1)!;
    expect(request.body).toBe(BODY);
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['user-agent']).toMatch(/^integration-host-webhooks\//);
    const hex = (secret: string) => createHmac('sha256', secret).update(`1700000123.${BODY}`).digest('hex');
    expect(request.headers['x-platform-signature']).toBe(`t=1700000123,v1=${hex('s1')},v1=${hex('s0')}`);
  });

  it('returns a redirect as its status without following it', async () => {
    const before = seen.length;
    expect(await deliverAttempt({ url: `${base}/redirect`, body: BODY, secrets: ['s'] }, options())).toMatchObject({
      status: 302,
    });
    expect(seen.length - before).toBe(1);
  });

  it('returns the receiver status as is', async () => {
    expect(await deliverAttempt({ url: `${base}/unavailable`, body: BODY, secrets: ['s'] }, options())).toMatchObject({
      status: 503,
    });
  });

  it('does not buffer a large answer', async () => {
    expect(await deliverAttempt({ url: `${base}/big`, body: BODY, secrets: ['s'] }, options())).toMatchObject({
      status: 200,
    });
  });

  it('reports a receiver that does not answer in time as a timeout', async () => {
    const result = await deliverAttempt(
      { url: `${base}/hang`, body: BODY, secrets: ['s'] },
      options({ timeoutMs: 200 }),
    );
    expect(result).toMatchObject({ error: 'timeout' });
    expect(result.durationMs).toBeGreaterThanOrEqual(190);
  });

  it('reports a closed port as refused', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    expect(
      await deliverAttempt({ url: `http://127.0.0.1:${port}/`, body: BODY, secrets: ['s'] }, options()),
    ).toMatchObject({ error: 'refused' });
  });

  it('reports a dropped connection as reset', async () => {
    expect(await deliverAttempt({ url: `${base}/reset`, body: BODY, secrets: ['s'] }, options())).toMatchObject({
      error: 'reset',
    });
  });

  it('reports a failed DNS lookup as dns', async () => {
    const failing = ((_h: string, _o: object, callback: (error: Error) => void) =>
      callback(
        Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.test'), { code: 'ENOTFOUND' }),
      )) as unknown as LookupFunction;
    expect(
      await deliverAttempt({ url: 'https://nowhere.test/', body: BODY, secrets: ['s'] }, options({ lookup: failing })),
    ).toMatchObject({ error: 'dns' });
  });

  it('refuses loopback without an --allow-egress exception, before connecting', async () => {
    const before = seen.length;
    const result = await deliverAttempt(
      { url: `${base}/ok`, body: BODY, secrets: ['s'] },
      options({ policy: createEgressPolicy({ allow: [] }) }),
    );
    expect(result).toMatchObject({ error: 'blocked' });
    expect('message' in result && result.message).toMatch(/loopback/);
    expect(seen.length).toBe(before);
  });

  it('refuses a host name that resolves to a private address at connect time', async () => {
    const result = await deliverAttempt(
      { url: 'https://rebind.test/', body: BODY, secrets: ['s'] },
      options({ policy: createEgressPolicy({ allow: [] }), lookup: lookupTo('10.0.0.7') }),
    );
    expect(result).toMatchObject({ error: 'blocked' });
  });

  it('connects to the checked address it resolved (pinned socket)', async () => {
    const port = new URL(base).port;
    const result = await deliverAttempt(
      { url: `http://receiver.test:${port}/ok`, body: BODY, secrets: ['s'] },
      options({ lookup: lookupTo('127.0.0.1') }),
    );
    expect(result).toMatchObject({ status: 200 });
    expect(seen.at(-1)?.headers.host).toBe(`receiver.test:${port}`);
  });

  it('reuses a kept-alive connection across attempts and still applies the policy', async () => {
    const agents = createDeliveryAgents(2);
    try {
      await deliverAttempt({ url: `${base}/ok`, body: BODY, secrets: ['s'] }, options({ agents }));
      await deliverAttempt({ url: `${base}/ok`, body: BODY, secrets: ['s'] }, options({ agents }));
      const [first, second] = seen.slice(-2);
      expect(second.remotePort).toBe(first.remotePort);
      const blocked = await deliverAttempt(
        { url: `${base}/ok`, body: BODY, secrets: ['s'] },
        options({ agents, policy: createEgressPolicy({ allow: [] }) }),
      );
      expect(blocked).toMatchObject({ error: 'blocked' });
    } finally {
      agents.destroy();
    }
  });

  it('does not send without a signing secret', async () => {
    const before = seen.length;
    expect(await deliverAttempt({ url: `${base}/ok`, body: BODY, secrets: [] }, options())).toMatchObject({
      error: 'unsigned',
    });
    expect(seen.length).toBe(before);
  });
});

// A guest that spins forever after awaiting a host promise escapes V8's synchronous timeout; the
// worker's wall-clock deadline must still stop it (504) and the integration must recover.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestHost, endpointOf, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';

let host: TestHost;
let receiver: http.Server;
let receiverUrl = '';
let received = 0;

beforeAll(async () => {
  receiver = http.createServer((_req, res) => {
    received++;
    res.end('ok');
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`;
  host = await startTestHost({ dirs: ['fixtures/integrations', 'fixtures/hostile'], allowEgress: [`127.0.0.1:${(receiver.address() as AddressInfo).port}`], limits: { dispatchTimeoutMs: 1_000, memoryLimitMb: 64 } });
});
afterAll(async () => {
  await host?.close();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

describe('infinite loop after await fetch()', () => {
  it('is stopped at the wall-clock deadline with 504 ERR_SANDBOX_TIMEOUT', async () => {
    const started = Date.now();
    const response = await fetch(`${endpointOf(host, 'loop-after-await')}?target=${encodeURIComponent(receiverUrl)}`);
    const elapsed = Date.now() - started;
    expect(response.status).toBe(504);
    expect((await response.json()).error.code).toBe('ERR_SANDBOX_TIMEOUT');
    expect(received).toBe(1);
    expect(elapsed).toBeGreaterThanOrEqual(900);
    expect(elapsed).toBeLessThan(8_000);
  });

  it('recovers on the next request with a fresh isolate', async () => {
    const response = await fetch(`${endpointOf(host, 'loop-after-await')}?mode=ok`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('fine');
  });

  it('leaves the host and its neighbour answering', async () => {
    await expectHostHealthy(host);
  });
});

// A guest growing its heap step by step: the isolate's memory limit (not the clock) stops it with
// 502 ERR_SANDBOX_CRASHED, the integration recovers with a fresh isolate, and the host and a
// neighbour keep answering.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestHost, endpointOf, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';

let host: TestHost;

beforeAll(async () => {
  // A small heap and a long deadline make the memory limit, not the clock, the thing that stops it.
  host = await startTestHost({
    dirs: ['fixtures/integrations', 'fixtures/hostile'],
    limits: { memoryLimitMb: 32, dispatchTimeoutMs: 30_000 },
  });
});
afterAll(() => host?.close());

describe('heap growth', () => {
  it('is stopped by the isolate memory limit with 502 ERR_SANDBOX_CRASHED', async () => {
    const response = await fetch(endpointOf(host, 'heap-growth'));
    expect(response.status).toBe(502);
    const body = await response.json();
    expect(body.error.code).toBe('ERR_SANDBOX_CRASHED');
    expect(body.error.message).toMatch(/memory limit of 32 MB/);
  }, 60_000);

  it('recovers on the next request with a fresh isolate', async () => {
    expect((await fetch(`${endpointOf(host, 'heap-growth')}?mode=ok`)).status).toBe(200);
  });

  it('leaves the host and its neighbour answering', async () => {
    await expectHostHealthy(host);
  });
});

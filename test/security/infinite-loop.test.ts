// A guest spinning forever in its handler, synchronously: the dispatch deadline stops it (504
// ERR_SANDBOX_TIMEOUT, the isolate disposed), the integration recovers on the next request with a
// fresh isolate, and the host and a neighbour keep answering meanwhile.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestHost, endpointOf, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy, neighbourAnswers } from '../helpers/host-health.ts';

let host: TestHost;

beforeAll(async () => {
  host = await startTestHost({ dirs: ['fixtures/integrations', 'fixtures/hostile'], limits: { dispatchTimeoutMs: 1_000, memoryLimitMb: 64 } });
});
afterAll(() => host?.close());

describe('synchronous infinite loop', () => {
  it('is stopped at the deadline with 504 ERR_SANDBOX_TIMEOUT while the neighbour answers', async () => {
    const started = Date.now();
    const attack = fetch(endpointOf(host, 'infinite-loop'));
    const during = await neighbourAnswers(host);
    const response = await attack;
    expect(response.status).toBe(504);
    expect((await response.json()).error.code).toBe('ERR_SANDBOX_TIMEOUT');
    expect(Date.now() - started).toBeLessThan(8_000);
    expect(during.status).toBe(200);
  });

  it('recovers on the next request with a fresh isolate', async () => {
    const response = await fetch(`${endpointOf(host, 'infinite-loop')}?mode=ok`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('fine');
  });

  it('leaves the host and its neighbour answering', async () => {
    await expectHostHealthy(host);
  });
});

// A guest awaiting a promise that never settles holds its dispatch open without using CPU: the
// wall-clock deadline answers 504 ERR_SANDBOX_TIMEOUT (and disposes the isolate), the integration
// recovers on the next request, and the host and a neighbour answer meanwhile.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestHost, endpointOf, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy, neighbourAnswers } from '../helpers/host-health.ts';

let host: TestHost;

beforeAll(async () => {
  host = await startTestHost({ dirs: ['fixtures/integrations', 'fixtures/hostile'], limits: { dispatchTimeoutMs: 1_000, memoryLimitMb: 64 } });
});
afterAll(() => host?.close());

describe('a promise that never settles', () => {
  it('is answered 504 ERR_SANDBOX_TIMEOUT at the deadline while the neighbour answers', async () => {
    const started = Date.now();
    const attack = fetch(endpointOf(host, 'never-settling-promise'));
    const during = await neighbourAnswers(host);
    const response = await attack;
    const elapsed = Date.now() - started;
    expect(response.status).toBe(504);
    expect((await response.json()).error).toEqual({ code: 'ERR_SANDBOX_TIMEOUT', message: 'the integration did not answer within 1000 ms' });
    expect(elapsed).toBeGreaterThanOrEqual(950);
    expect(elapsed).toBeLessThan(5_000);
    expect(during.status).toBe(200);
  });

  it('recovers on the next request', async () => {
    const response = await fetch(`${endpointOf(host, 'never-settling-promise')}?mode=ok`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('fine');
  });

  it('leaves the host and its neighbour answering', async () => {
    await expectHostHealthy(host);
  });
});

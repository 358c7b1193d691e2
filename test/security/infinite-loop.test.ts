// A guest spinning forever in its handler, synchronously: the dispatch deadline stops it (504
// ERR_SANDBOX_TIMEOUT, the isolate disposed) while a neighbour keeps answering. The integration is
// then on the low-priority offenders' worker; a second runaway request is stopped there too, and
// it still recovers with a fresh isolate. A deadline that answered 504 without disposing the
// isolate would leave it spinning, and the integration wedged, from the second timeout on.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestHost, endpointOf, newestEvent, warmUp, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy, neighbourAnswers } from '../helpers/host-health.ts';

const DEADLINE_MS = 1_000;
let host: TestHost;

/** One runaway request: 504 ERR_SANDBOX_TIMEOUT, stopped at the deadline by the worker's own clock. */
async function expectStoppedAtDeadline(response: Response): Promise<void> {
  expect(response.status).toBe(504);
  expect((await response.json()).error).toEqual({
    code: 'ERR_SANDBOX_TIMEOUT',
    message: `the integration did not answer within ${DEADLINE_MS} ms`,
  });
  const logged = await newestEvent(host, 'infinite-loop');
  expect(logged).toMatchObject({ status: 504, errorCode: 'ERR_SANDBOX_TIMEOUT' });
  // The worker's measure, isolate start-up excluded by the warm-up: the deadline, not the 10 s default.
  expect(logged.durationMs).toBeGreaterThanOrEqual(DEADLINE_MS - 1);
  expect(logged.durationMs).toBeLessThan(DEADLINE_MS + 4_000);
}

beforeAll(async () => {
  host = await startTestHost({
    dirs: ['fixtures/integrations', 'fixtures/hostile'],
    limits: { dispatchTimeoutMs: DEADLINE_MS, memoryLimitMb: 64 },
  });
  await warmUp(`${endpointOf(host, 'infinite-loop')}?mode=ok`);
});
afterAll(() => host?.close());

describe('synchronous infinite loop', () => {
  it('is stopped at the deadline with 504 ERR_SANDBOX_TIMEOUT while the neighbour answers', async () => {
    const attack = fetch(endpointOf(host, 'infinite-loop'));
    const during = await neighbourAnswers(host);
    await expectStoppedAtDeadline(await attack);
    expect(during.status).toBe(200);
  });

  it('recovers on the next request with a fresh isolate', async () => {
    const response = await fetch(`${endpointOf(host, 'infinite-loop')}?mode=ok`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('fine');
  });

  it("is stopped again on the offenders' worker, and recovers again", async () => {
    expect(host.supervisor.workerOf('infinite-loop')).toBe(host.supervisor.offenderWorker);
    await expectStoppedAtDeadline(await fetch(endpointOf(host, 'infinite-loop')));
    const response = await fetch(`${endpointOf(host, 'infinite-loop')}?mode=ok`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('fine');
  });

  it('leaves the host and its neighbour answering', async () => {
    await expectHostHealthy(host);
  });
});

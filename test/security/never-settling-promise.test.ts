// A guest awaiting a promise that never settles holds its dispatch open without using CPU: the
// wall-clock deadline answers 504 ERR_SANDBOX_TIMEOUT (and disposes the isolate), the integration
// recovers on the next request, and the host and a neighbour answer meanwhile; a second time on
// the offenders' worker too.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestHost, endpointOf, newestEvent, warmUp, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy, neighbourAnswers } from '../helpers/host-health.ts';

const DEADLINE_MS = 1_000;
let host: TestHost;

async function expectStoppedAtDeadline(response: Response): Promise<void> {
  expect(response.status).toBe(504);
  expect((await response.json()).error).toEqual({
    code: 'ERR_SANDBOX_TIMEOUT',
    message: `the integration did not answer within ${DEADLINE_MS} ms`,
  });
  const logged = await newestEvent(host, 'never-settling-promise');
  expect(logged).toMatchObject({ status: 504, errorCode: 'ERR_SANDBOX_TIMEOUT' });
  // The worker's own measure (start-up excluded by warming): the configured deadline, not the 10 s default.
  expect(logged.durationMs).toBeGreaterThanOrEqual(DEADLINE_MS - 1);
  expect(logged.durationMs).toBeLessThan(DEADLINE_MS + 4_000);
}

async function recovers(): Promise<void> {
  const response = await fetch(`${endpointOf(host, 'never-settling-promise')}?mode=ok`);
  expect(response.status).toBe(200);
  expect(await response.text()).toBe('fine');
}

beforeAll(async () => {
  host = await startTestHost({
    dirs: ['fixtures/integrations', 'fixtures/hostile'],
    limits: { dispatchTimeoutMs: DEADLINE_MS, memoryLimitMb: 64 },
  });
  await warmUp(`${endpointOf(host, 'never-settling-promise')}?mode=ok`);
});
afterAll(() => host?.close());

describe('a promise that never settles', () => {
  it('is answered 504 ERR_SANDBOX_TIMEOUT at the deadline while the neighbour answers', async () => {
    const attack = fetch(endpointOf(host, 'never-settling-promise'));
    const during = await neighbourAnswers(host);
    await expectStoppedAtDeadline(await attack);
    expect(during.status).toBe(200);
  });

  it('recovers on the next request', async () => {
    await recovers();
  });

  it("is answered 504 again on the offenders' worker, and recovers again", async () => {
    expect(host.supervisor.workerOf('never-settling-promise')).toBe(host.supervisor.offenderWorker);
    await expectStoppedAtDeadline(await fetch(endpointOf(host, 'never-settling-promise')));
    await recovers();
  });

  it('leaves the host and its neighbour answering', async () => {
    await expectHostHealthy(host);
  });
});

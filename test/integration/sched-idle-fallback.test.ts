// Where SCHED_IDLE cannot be had (no util-linux `chrt`, a kernel or container that refuses the
// policy), the host says so in one log line, retires the worker it meant for it, and keeps offenders
// that burn CPU again on the nice-19 worker, where they still answer. The test names a command that
// does not exist in place of chrt.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestHost, endpointOf, warmUp, waitFor, type TestHost } from '../helpers/host.ts';

let host: TestHost;

beforeAll(async () => {
  host = await startTestHost({
    dirs: ['fixtures/integrations', 'fixtures/hostile/infinite-loop'],
    schedIdleCommand: 'chrt-that-is-not-installed',
    limits: { dispatchTimeoutMs: 1_000, timeoutsBeforeCooldown: 100 },
  });
  await warmUp(`${endpointOf(host, 'infinite-loop')}?mode=ok`);
});
afterAll(() => host?.close());

const fallbackLine = (line: string) =>
  line.includes('SCHED_IDLE is not available (`chrt-that-is-not-installed` (util-linux) is not installed)');

describe('without SCHED_IDLE', () => {
  it('says so once and runs without the SCHED_IDLE worker', async () => {
    await waitFor(() => host.logs.some(fallbackLine));
    expect(host.logs.filter(fallbackLine)).toHaveLength(1);
    expect(host.supervisor.schedIdleWorker).toBeUndefined();
    await waitFor(() => host.supervisor.workersUp().total === 3);
    expect(host.supervisor.workerPids()).toHaveLength(3);
  });

  it('keeps an offender that burns CPU again on the nice-19 worker, answering', async () => {
    for (let i = 0; i < 2; i++) {
      expect((await fetch(endpointOf(host, 'infinite-loop'))).status).toBe(504);
      await host.supervisor.verdictsArrived('infinite-loop');
      expect(host.supervisor.workerOf('infinite-loop')).toBe(host.supervisor.offenderWorker);
    }
    expect((await fetch(`${endpointOf(host, 'infinite-loop')}?mode=ok`)).status).toBe(200);
    expect(host.logs.filter(fallbackLine)).toHaveLength(1);
  });
});

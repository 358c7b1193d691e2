// A guest that keeps burning CPU after its first demotion must not keep delaying its neighbours:
// its second CPU-burning timeout moves it from the nice-19 offenders' worker to one whose every
// thread runs under SCHED_IDLE (a woken neighbour then never waits out its time slice). What lands
// there is decided by evidence: a guest that only waits (a never-settling promise) stays at nice 19
// however often it times out, so an honest integration is not starved on a saturated machine. And
// when the SCHED_IDLE worker gets no CPU within the backstop (simulated by freezing it with SIGSTOP,
// a process the host started), the integration goes back to nice 19 and answers there.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestHost, endpointOf, warmUp, waitFor, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy, neighbourAnswers } from '../helpers/host-health.ts';
import { SCHED_IDLE, threadPolicies } from '../../host/sandbox/sched-policy.ts';

const DEADLINE_MS = 1_000;
const BACKSTOP_MS = DEADLINE_MS + 5_000;
let host: TestHost;
let frozen: number | null = null;

beforeAll(async () => {
  host = await startTestHost({
    dirs: ['fixtures/integrations', 'fixtures/hostile/infinite-loop', 'fixtures/hostile/never-settling-promise'],
    limits: { dispatchTimeoutMs: DEADLINE_MS, timeoutsBeforeCooldown: 100 },
  });
  await warmUp(`${endpointOf(host, 'infinite-loop')}?mode=ok`);
  await warmUp(`${endpointOf(host, 'never-settling-promise')}?mode=ok`);
});
afterAll(async () => {
  if (frozen !== null) process.kill(frozen, 'SIGCONT');
  await host?.close();
});

describe('an offender that keeps burning CPU', () => {
  it('lands on the SCHED_IDLE worker after its second spinning timeout, while the neighbour answers', async () => {
    const spin = endpointOf(host, 'infinite-loop');
    expect((await fetch(spin)).status).toBe(504);
    expect(host.supervisor.workerOf('infinite-loop')).toBe(host.supervisor.offenderWorker);
    const attack = fetch(spin);
    const during = await neighbourAnswers(host);
    expect((await attack).status).toBe(504);
    expect(during.status).toBe(200);
    const idle = host.supervisor.schedIdleWorker!;
    expect(host.supervisor.workerOf('infinite-loop')).toBe(idle);
    const pid = host.supervisor.workerPid(idle);
    await waitFor(() => threadPolicies(pid).length > 1 && threadPolicies(pid).every((policy) => policy === SCHED_IDLE));
    // The neighbour never shares that worker.
    expect(host.supervisor.workerOf('hello')).not.toBe(idle);
    expect(host.supervisor.workerOf('hello')).not.toBe(host.supervisor.offenderWorker);
  });

  it('leaves a guest that only waits at nice 19, however often it times out', async () => {
    const wait = endpointOf(host, 'never-settling-promise');
    for (let i = 0; i < 3; i++) {
      expect((await fetch(wait)).status).toBe(504);
      expect(host.supervisor.workerOf('never-settling-promise')).toBe(host.supervisor.offenderWorker);
    }
    expect(host.logs.some((line) => line.includes('"never-settling-promise"') && line.includes('SCHED_IDLE'))).toBe(false);
    const response = await fetch(`${wait}?mode=ok`);
    expect(response.status).toBe(200);
  });

  it('goes back to nice 19 when the SCHED_IDLE worker gets no CPU within the backstop, and answers there', async () => {
    frozen = host.supervisor.workerPid(host.supervisor.schedIdleWorker!);
    process.kill(frozen, 'SIGSTOP');
    const started = performance.now();
    const starved = await fetch(`${endpointOf(host, 'infinite-loop')}?mode=ok`);
    expect(starved.status).toBe(504);
    expect(performance.now() - started).toBeGreaterThanOrEqual(BACKSTOP_MS - 50);
    expect(host.supervisor.workerOf('infinite-loop')).toBe(host.supervisor.offenderWorker);
    expect(host.logs.some((line) => line.includes(`the SCHED_IDLE sandbox worker got no CPU for "infinite-loop" within ${BACKSTOP_MS} ms`))).toBe(true);
    const response = await fetch(`${endpointOf(host, 'infinite-loop')}?mode=ok`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('fine');
    process.kill(frozen, 'SIGCONT');
    frozen = null;
  });

  it('leaves the host and its neighbour answering', async () => {
    await expectHostHealthy(host);
  });
});

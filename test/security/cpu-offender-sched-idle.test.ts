// A guest that keeps burning CPU after its first demotion must not keep delaying its neighbours:
// its second CPU-burning timeout moves it from the nice-19 offenders' worker to one whose every
// thread but its main one runs under SCHED_IDLE (a woken neighbour then never waits out its time slice). What lands
// there is decided by evidence: a guest that only waits (a never-settling promise) stays at nice 19
// however often it times out. A machine that is merely busy (its neighbours' own load) leaves it
// there; but SCHED_IDLE must not silence it: once its worker had work and got no CPU (normal work
// saturates the machine), its next request is moved back to nice 19 first and answered there, and
// it is not sent down again for a while, nor while the machine has no CPU to spare. Both verdicts
// are injected here (the /proc sampling behind them is unit-tested in spare-cpu.test.ts), so the
// test means the same on a busy machine as on an idle one. One verdict is the machine's own: the
// evidence that a guest burned CPU is the time its isolate spent executing, and a guest that only
// waits but whose few milliseconds of work were kept waiting for a CPU (its worker runs at nice 19)
// shows the same; the supervisor's real sampler then finds the machine saturated and keeps it at
// nice 19. The waiting guest's test gives that verdict from its worker's run-queue wait (schedstat).
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestHost, endpointOf, warmUp, waitFor, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy, neighbourAnswers } from '../helpers/host-health.ts';
import { readFileSync } from 'node:fs';
import {
  SCHED_IDLE,
  SCHED_OTHER,
  guestThreadsOf,
  threadPolicies,
  threadStatField,
  threadsOf,
} from '../../host/offenders/sched-policy.ts';

const DEADLINE_MS = 1_000;
let host: TestHost;
let saturated = false;
let starved = false;
/** Set while a test lets the machine's real contention count: whether the offenders' worker waited for a CPU. */
let offenderWaitedForCpu: () => boolean = () => false;

/** Milliseconds the threads of `pid` spent runnable but waiting for a CPU (schedstat's second field). */
function runQueueWaitMs(pid: number): number {
  let ns = 0;
  for (const tid of threadsOf(pid)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[1]);
    } catch {
      // The thread ended meanwhile.
    }
  }
  return ns / 1e6;
}

beforeAll(async () => {
  host = await startTestHost({
    dirs: ['fixtures/integrations', 'fixtures/hostile/infinite-loop', 'fixtures/hostile/never-settling-promise'],
    limits: { dispatchTimeoutMs: DEADLINE_MS, timeoutsBeforeCooldown: 100 },
    machineSaturated: () => saturated || offenderWaitedForCpu(),
    schedIdleStarved: () => starved,
  });
  await warmUp(`${endpointOf(host, 'infinite-loop')}?mode=ok`);
  await warmUp(`${endpointOf(host, 'never-settling-promise')}?mode=ok`);
});
afterAll(() => host?.close());

describe('an offender that keeps burning CPU', () => {
  it('lands on the SCHED_IDLE worker after its second spinning timeout, while the neighbour answers', async () => {
    const spin = endpointOf(host, 'infinite-loop');
    expect((await fetch(spin)).status).toBe(504);
    expect(host.supervisor.workerOf('infinite-loop')).toBe(host.supervisor.offenderWorker);
    const attack = fetch(spin);
    const during = await neighbourAnswers(host);
    expect((await attack).status).toBe(504);
    expect(during.status).toBe(200);
    // On the offenders' worker the host answered at the deadline; the move follows the worker's verdict.
    await host.supervisor.verdictsArrived('infinite-loop');
    const idle = host.supervisor.schedIdleWorker!;
    expect(host.supervisor.workerOf('infinite-loop')).toBe(idle);
    const pid = host.supervisor.workerPid(idle);
    await waitFor(
      () =>
        guestThreadsOf(pid).length > 1 &&
        threadPolicies(pid, guestThreadsOf(pid)).every((policy) => policy === SCHED_IDLE),
    );
    // Its main thread (the deadline timer, the 504) does not wait behind the spinner.
    expect(threadPolicies(pid, [pid])).toEqual([SCHED_OTHER]);
    expect(threadStatField(pid, pid, 19)).toBe(10);
    // The neighbour never shares that worker.
    expect(host.supervisor.workerOf('hello')).not.toBe(idle);
    expect(host.supervisor.workerOf('hello')).not.toBe(host.supervisor.offenderWorker);
  });

  it('leaves a guest that only waits at nice 19, however often it times out', async () => {
    const wait = endpointOf(host, 'never-settling-promise');
    const pid = host.supervisor.workerPid(host.supervisor.offenderWorker!);
    for (let i = 0; i < 3; i++) {
      const waitedBefore = runQueueWaitMs(pid);
      offenderWaitedForCpu = () => runQueueWaitMs(pid) - waitedBefore >= 50;
      expect((await fetch(wait)).status).toBe(504);
      await host.supervisor.verdictsArrived('never-settling-promise');
      offenderWaitedForCpu = () => false;
      expect(host.supervisor.workerOf('never-settling-promise')).toBe(host.supervisor.offenderWorker);
    }
    expect(host.logs.some((line) => line.includes('"never-settling-promise"') && line.includes('SCHED_IDLE'))).toBe(
      false,
    );
    // It still answers. Its isolate is new (the deadline disposed the last one) and built on the
    // nice-19 worker, which a saturated machine may keep from finishing that before the deadline:
    // that 504 is the host's slowness (none of its code ran), so it is asked until it answers.
    const waitedBefore = runQueueWaitMs(pid);
    offenderWaitedForCpu = () => runQueueWaitMs(pid) - waitedBefore >= 50;
    await waitFor(async () => (await fetch(`${wait}?mode=ok`)).status === 200, 60_000);
    offenderWaitedForCpu = () => false;
  });

  it('stays on the SCHED_IDLE worker while the machine is busy but its worker did not starve', async () => {
    expect(host.supervisor.workerOf('infinite-loop')).toBe(host.supervisor.schedIdleWorker);
    saturated = true;
    // Whether this answer comes within the deadline depends on the CPU the machine really has to
    // spare (none beside CI's two burners, where SCHED_IDLE gets almost nothing): the verdicts are
    // injected, the scheduler is not. What must hold either way is where the next dispatch goes.
    const response = await fetch(`${endpointOf(host, 'infinite-loop')}?mode=ok`);
    expect([200, 504]).toContain(response.status);
    expect(host.supervisor.workerOf('infinite-loop')).toBe(host.supervisor.schedIdleWorker);
    saturated = false;
  });

  it('is moved back to nice 19 and answered there once its worker starved', async () => {
    starved = true;
    // Its isolate is built anew on the nice-19 worker, which a saturated machine may keep from
    // finishing before the deadline (a 504 before any of its code ran): it is asked until it answers.
    let body = '';
    await waitFor(async () => {
      const response = await fetch(`${endpointOf(host, 'infinite-loop')}?mode=ok`);
      body = await response.text();
      return response.status === 200;
    }, 60_000);
    expect(body).toBe('fine');
    expect(host.supervisor.workerOf('infinite-loop')).toBe(host.supervisor.offenderWorker);
    expect(
      host.logs.some((line) =>
        line.includes(
          'the SCHED_IDLE sandbox worker got no CPU while it had work (the machine has none to spare): ' +
            '"infinite-loop" moved back to the low-priority (nice 19) worker',
        ),
      ),
    ).toBe(true);
  });

  it(
    'is not sent down to SCHED_IDLE again while its worker starved lately, nor while the machine has no CPU to ' +
      'spare',
    async () => {
      expect((await fetch(endpointOf(host, 'infinite-loop'))).status).toBe(504);
      await host.supervisor.verdictsArrived('infinite-loop');
      expect(host.supervisor.workerOf('infinite-loop')).toBe(host.supervisor.offenderWorker);
      starved = false;
      saturated = true;
      expect((await fetch(endpointOf(host, 'infinite-loop'))).status).toBe(504);
      await host.supervisor.verdictsArrived('infinite-loop');
      expect(host.supervisor.workerOf('infinite-loop')).toBe(host.supervisor.offenderWorker);
      saturated = false;
      expect((await fetch(endpointOf(host, 'infinite-loop'))).status).toBe(504);
      await host.supervisor.verdictsArrived('infinite-loop');
      expect(host.supervisor.workerOf('infinite-loop')).toBe(host.supervisor.schedIdleWorker);
    },
  );

  it('leaves the host and its neighbour answering', async () => {
    await expectHostHealthy(host);
  });
});

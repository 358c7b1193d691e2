// An integration that runs past its deadline is moved to a separate low-priority worker, so it
// competes for CPU only with other offenders; well-behaved integrations never land there. One that
// burns CPU past its deadline again there moves on to a worker under the SCHED_IDLE policy. In both,
// the threads that run guest code go to nice 19; the main thread stays above them, at nice 10.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestHost, endpointOf, waitFor, warmUp, type TestHost } from '../helpers/host.ts';
import {
  SCHED_IDLE,
  SCHED_OTHER,
  guestThreadsOf,
  threadPolicies,
  threadStatField,
} from '../../host/offenders/sched-policy.ts';

let host: TestHost;
/**
 * Whether the machine counts as having no CPU to spare (injected: the escalation must not depend on the machine's
 * load).
 */
let saturated = false;
/** Whether the SCHED_IDLE worker counts as having starved lately (injected, likewise). */
let starved = false;

beforeAll(async () => {
  // Only the offenders this test needs: with every hostile fixture, dozens of isolates start at
  // once and a busy machine can push the neighbours' own setup events past their deadline.
  host = await startTestHost({
    dirs: ['fixtures/integrations', 'fixtures/hostile/infinite-loop', 'fixtures/hostile/heap-growth'],
    limits: { dispatchTimeoutMs: 1_000 },
    machineSaturated: () => saturated,
    schedIdleStarved: () => starved,
  });
  // The installation_setup dispatches of the start-up must be over, none of them a timeout.
  await waitFor(async () =>
    (
      await Promise.all(
        ['hello', 'counter', 'infinite-loop'].map((name) => host.services.listEvents(name, { limit: 10 })),
      )
    ).every((page) => page.items.length > 0),
  );
  await warmUp(`${endpointOf(host, 'infinite-loop')}?mode=ok`);
});
afterAll(() => host?.close());

/** The nice value of a process's thread (its main one by default), from /proc (field 19 of stat); NaN once it ended. */
function niceOf(pid: number, thread = pid): number {
  return threadStatField(pid, thread, 19);
}

describe('offender demotion', () => {
  it(
    'runs one extra worker whose guest threads run at the lowest priority, its main thread at nice 10, that nothing ' +
      'is pinned to at first',
    async () => {
      const offender = host.supervisor.offenderWorker!;
      expect(offender).toBe(2);
      // Two regular workers, the nice-19 offenders' worker, the SCHED_IDLE one.
      expect(host.supervisor.workerPids()).toHaveLength(4);
      const pid = host.supervisor.workerPid(offender);
      // Every thread but the main one (V8's and isolated-vm's run the guest code; threads the worker
      // makes after its start are lowered as they appear: wait for those).
      expect(guestThreadsOf(pid).length).toBeGreaterThan(1);
      await waitFor(() => guestThreadsOf(pid).every((thread) => niceOf(pid, thread) === 19));
      // The main thread (the deadline timer, the 504, IPC) stays above them, at nice 10.
      expect(niceOf(pid)).toBe(10);
      expect(threadPolicies(pid, [pid])).toEqual([SCHED_OTHER]);
      for (const name of ['hello', 'counter', 'infinite-loop', 'heap-growth'])
        expect(host.supervisor.workerOf(name)).not.toBe(offender);
    },
  );

  it(
    'runs a second extra worker with every thread but its main one under SCHED_IDLE, nothing pinned to it, the ' +
      'others under SCHED_OTHER',
    async () => {
      const idle = host.supervisor.schedIdleWorker!;
      expect(idle).toBe(3);
      const pid = host.supervisor.workerPid(idle);
      // Threads the worker makes after its start (its warm pool's) are lowered as they appear: wait for that.
      await waitFor(
        () =>
          guestThreadsOf(pid).length > 1 &&
          guestThreadsOf(pid).every(
            (thread) => threadStatField(pid, thread, 41) === SCHED_IDLE && niceOf(pid, thread) === 19,
          ),
      );
      expect(threadPolicies(pid, [pid])).toEqual([SCHED_OTHER]);
      expect(niceOf(pid)).toBe(10);
      for (const worker of [0, 1, host.supervisor.offenderWorker!])
        expect(new Set(threadPolicies(host.supervisor.workerPid(worker))), `worker ${worker}`).toEqual(
          new Set([SCHED_OTHER]),
        );
      for (const name of ['hello', 'counter', 'infinite-loop', 'heap-growth'])
        expect(host.supervisor.workerOf(name)).not.toBe(idle);
    },
  );

  it('moves an integration there after it times out, and it keeps working there', async () => {
    expect((await fetch(endpointOf(host, 'infinite-loop'))).status).toBe(504);
    expect(host.supervisor.workerOf('infinite-loop')).toBe(host.supervisor.offenderWorker);
    expect(
      host.logs.some((line) =>
        line.includes('"infinite-loop" ran past its deadline: moved to the low-priority sandbox worker'),
      ),
    ).toBe(true);
    expect((await fetch(`${endpointOf(host, 'infinite-loop')}?mode=ok`)).status).toBe(200);
    expect(host.supervisor.workerOf('hello')).not.toBe(host.supervisor.offenderWorker);
    expect(await (await fetch(endpointOf(host, 'hello'), { method: 'POST' })).json()).toEqual({ received: true });
  });

  it(
    'moves it on to the SCHED_IDLE worker when it burns CPU past its deadline there too; once that worker starved, ' +
      'back to nice 19, answering',
    async () => {
      expect((await fetch(endpointOf(host, 'infinite-loop'))).status).toBe(504);
      // There the host answered at the deadline; the move follows the worker's verdict.
      await host.supervisor.verdictsArrived('infinite-loop');
      expect(host.supervisor.workerOf('infinite-loop')).toBe(host.supervisor.schedIdleWorker);
      expect(
        host.logs.some(
          (line) =>
            line.includes('integration "infinite-loop" ') &&
            line.includes(
              ' and burned CPU again on the low-priority worker: moved to the idle-priority (SCHED_IDLE) ' +
                'sandbox worker',
            ),
        ),
      ).toBe(true);
      // On a machine that normal work saturates (CI beside CPU burners), SCHED_IDLE would not answer.
      saturated = true;
      starved = true;
      expect((await fetch(`${endpointOf(host, 'infinite-loop')}?mode=ok`)).status).toBe(200);
      expect(host.supervisor.workerOf('infinite-loop')).toBe(host.supervisor.offenderWorker);
      const metrics = await (await host.admin('/metrics')).text();
      expect(metrics).toContain('integration_host_demotions_total{integration="infinite-loop"} 1');
      expect(metrics).toContain('integration_host_sched_idle_demotions_total{integration="infinite-loop"} 1');
      expect(metrics).toContain('integration_host_sched_idle_returns_total{integration="infinite-loop"} 1');
    },
  );
});

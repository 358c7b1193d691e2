// The supervisor's units on their own, without a worker process: routing pins and moves, the
// offender ladder's moves and strikes, the host's backstop. Fake slots record what they are sent.
import { describe, expect, it } from 'vitest';
import { OffenderScheduling } from '../../../host/offenders/index.ts';
import { CrashLedger } from '../../../host/sandbox/crash-ledger.ts';
import type { ToWorker } from '../../../host/sandbox/messages.ts';
import { TimeoutBreaker } from '../../../host/sandbox/timeout-breaker.ts';
import type { Slot } from '../../../host/sandbox/worker-slot.ts';
import { HostDeadlines } from '../../../host/sandbox/supervisor/host-deadlines.ts';
import { OffenderLadder } from '../../../host/sandbox/supervisor/offender-ladder.ts';
import type { SupervisorOptions } from '../../../host/sandbox/supervisor/options.ts';
import { Routing } from '../../../host/sandbox/supervisor/routing.ts';
import type { WorkerLifecycle } from '../../../host/sandbox/supervisor/worker-lifecycle.ts';

const BUNDLE = { code: 'export default {}', hash: 'h1' };

function fakeSlot(index: number, sent: Array<[number, ToWorker]>): Slot {
  return {
    index,
    send: (message: ToWorker) => sent.push([index, message]),
    heldEnvironments: { forgetIntegration: () => undefined },
    pending: new Map(),
  } as unknown as Slot;
}

function routing(workers: number, demote: boolean, sent: Array<[number, ToWorker]> = []): Routing {
  const table = new Routing(workers, demote);
  for (let index = 0; index < workers + (demote ? 2 : 0); index++) table.slots.set(index, fakeSlot(index, sent));
  return table;
}

function ladder(table: Routing, notices: string[], counts: string[] = []): OffenderLadder {
  const options = {
    crashesBeforeQuarantine: 2,
    crashWindowMs: 60_000,
    timeoutBreaker: { limit: 3, windowMs: 60_000, cooldownMs: 30_000 },
    solitary: { maxWorkers: 0, probationMs: 1_000 },
    onNotice: (_level: string, message: string) => notices.push(message),
    onCount: (name: string) => counts.push(name),
  } as unknown as SupervisorOptions;
  const scheduling = new OffenderScheduling({
    machineSaturated: () => false,
    schedIdleStarved: () => false,
    onNotice: () => undefined,
  });
  const lifecycle = { stopped: false, start: () => undefined } as unknown as WorkerLifecycle;
  return new OffenderLadder(
    table,
    lifecycle,
    new CrashLedger(2, 60_000),
    new TimeoutBreaker(options.timeoutBreaker),
    scheduling,
    options,
  );
}

describe('Routing', () => {
  it("lays out regular, offenders' and SCHED_IDLE workers, then solitary ones", () => {
    const table = new Routing(3, true);
    expect([table.regularCount, table.offenderWorker, table.schedIdleIndex, table.firstSolitaryIndex]).toEqual([
      3, 3, 4, 5,
    ]);
    const plain = new Routing(0, false);
    expect([plain.regularCount, plain.offenderWorker, plain.schedIdleIndex, plain.firstSolitaryIndex]).toEqual([
      1,
      undefined,
      undefined,
      1,
    ]);
  });

  it('pins new integrations to the least loaded regular worker and sends them their bundle', () => {
    const sent: Array<[number, ToWorker]> = [];
    const table = routing(2, true, sent);
    for (const name of ['a', 'b', 'c']) table.register(name, BUNDLE);
    expect(['a', 'b', 'c'].map((name) => table.workerOf(name))).toEqual([0, 1, 0]);
    expect(sent.map(([index, message]) => [index, message.type])).toEqual([
      [0, 'register'],
      [1, 'register'],
      [0, 'register'],
    ]);
  });

  it('moves an integration: unregistered where it was, registered where it goes', () => {
    const sent: Array<[number, ToWorker]> = [];
    const table = routing(2, true, sent);
    table.register('a', BUNDLE);
    sent.length = 0;
    table.move('a', 2);
    expect(table.workerOf('a')).toBe(2);
    expect(sent.map(([index, message]) => [index, message.type])).toEqual([
      [0, 'unregister'],
      [2, 'register'],
    ]);
    table.move('a', 2);
    expect(sent).toHaveLength(2);
  });
});

describe('OffenderLadder', () => {
  it('moves an offender to nice 19, then to SCHED_IDLE only for CPU burnt on the nice-19 worker', () => {
    const table = routing(2, true);
    const notices: string[] = [];
    const counts: string[] = [];
    const steps = ladder(table, notices, counts);
    table.register('a', BUNDLE);
    steps.demote('a', 'ran past its deadline', true, 0);
    expect(table.workerOf('a')).toBe(table.offenderWorker);
    steps.demote('a', 'ran past its deadline', false, table.offenderWorker!);
    expect(table.workerOf('a')).toBe(table.offenderWorker);
    steps.demote('a', 'ran past its deadline', true, table.offenderWorker!);
    expect(table.workerOf('a')).toBe(table.schedIdleIndex);
    expect(counts).toEqual(['demotion', 'sched_idle_demotion']);
  });

  it('strikes a lone suspect of a crash, demotes it, and quarantines it at the limit', () => {
    const table = routing(1, true);
    const notices: string[] = [];
    const steps = ladder(table, notices);
    table.register('a', BUNDLE);
    expect(steps.blameCrash(table.slots.get(0)!, new Set(['a']))).toBe(true);
    expect(table.workerOf('a')).toBe(table.offenderWorker);
    steps.blameCrash(table.slots.get(table.offenderWorker!)!, new Set(['a']));
    expect(notices.some((line) => line.includes('quarantined until the host restarts'))).toBe(true);
  });

  it('keeps offenders at nice 19 once the SCHED_IDLE worker is retired', () => {
    const table = routing(1, true);
    const steps = ladder(table, []);
    table.register('a', BUNDLE);
    table.move('a', table.schedIdleIndex!);
    const schedIdle = table.slots.get(table.schedIdleIndex!)!;
    // An exited process: stopSlot has nothing to wait for.
    Object.assign(schedIdle, {
      child: { exitCode: 0, signalCode: null },
      bodies: new Map(),
      markReady: () => undefined,
    });
    steps.schedIdleUnavailable(schedIdle, 'no chrt');
    expect(steps.schedIdleWorker).toBeUndefined();
    expect(table.workerOf('a')).toBe(table.offenderWorker);
  });
});

describe('HostDeadlines', () => {
  it('answers for a silent worker at twice the deadline, at least the deadline plus 5 s', () => {
    const backstop = (dispatchTimeoutMs: number) =>
      new HostDeadlines({ limits: { dispatchTimeoutMs } } as SupervisorOptions, () => undefined).backstopMs;
    expect(backstop(500)).toBe(5_500);
    expect(backstop(10_000)).toBe(20_000);
  });
});

// What CPU normal work left over between two readings: the machine's idle time plus what the
// counted workers' guest threads got (only CPU nobody else wanted pays for a SCHED_IDLE worker; a nice-19 one
// takes its share from normal work, so the supervisor neither reads nor counts it). The verdicts:
// is there CPU to spare, and did the SCHED_IDLE worker starve while it had work?
import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import {
  judgeWindow,
  readCpu,
  saturatedBetween,
  spareCoresBetween,
  SPARE_CORE_SHARE,
} from '../../../host/offenders/spare-cpu.ts';
import { procStatField } from '../../../host/offenders/sched-policy.ts';

/** Readings of [the nice-19 worker, the SCHED_IDLE worker]. */
const reading = (idleTicks: number, workerTicks: number[], at: number) => ({ idleTicks, workerTicks, at });
const BOTH = [0, 1];
const SCHED_IDLE_ONLY = [1];

describe("spare CPU for the offenders' workers", () => {
  it('counts a machine with idle time as having CPU to spare', () => {
    expect(saturatedBetween(reading(1_000, [0, 0], 0), reading(1_050, [0, 0], 1_000), BOTH)).toBe(false);
    expect(spareCoresBetween(reading(1_000, [0, 0], 0), reading(1_050, [0, 0], 1_000), BOTH)).toBeCloseTo(0.5);
  });

  it('counts what the SCHED_IDLE worker got as spare, so its own spinning does not look like saturation', () => {
    expect(saturatedBetween(reading(1_000, [0, 500], 0), reading(1_000, [0, 580], 1_000), BOTH)).toBe(false);
    expect(saturatedBetween(reading(1_000, [0, 500], 0), reading(1_000, [0, 580], 1_000), SCHED_IDLE_ONLY)).toBe(false);
  });

  it(
    'counts what the nice-19 worker got as spare when asked to, so offenders spinning there do not look like ' +
      'saturation',
    () => {
      expect(saturatedBetween(reading(1_000, [200, 0], 0), reading(1_000, [350, 0], 1_000), BOTH)).toBe(false);
      expect(saturatedBetween(reading(1_000, [200, 0], 0), reading(1_000, [350, 0], 1_000), SCHED_IDLE_ONLY)).toBe(
        true,
      );
    },
  );

  it('calls the machine saturated when neither idle time nor the counted workers got a twentieth of a core', () => {
    const ticks = Math.floor(SPARE_CORE_SHARE * 100) - 1;
    expect(saturatedBetween(reading(1_000, [0, 500], 0), reading(1_000, [0, 500 + ticks], 1_000), BOTH)).toBe(true);
    expect(saturatedBetween(reading(1_000, [100, 500], 0), reading(1_000, [100, 500 + ticks + 1], 1_000), BOTH)).toBe(
      false,
    );
    expect(saturatedBetween(reading(1_000, [0, 500], 0), reading(1_000 + ticks + 1, [0, 500], 1_000), BOTH)).toBe(
      false,
    );
  });

  it('counts a restarted worker from zero and never calls an empty window saturated', () => {
    expect(saturatedBetween(reading(1_000, [0, 900], 0), reading(1_000, [0, 10], 1_000), BOTH)).toBe(false);
    expect(saturatedBetween(reading(1_000, [0, 0], 5), reading(1_000, [0, 0], 5), BOTH)).toBe(false);
  });

  it(
    "reads this machine's idle ticks and the CPU ticks of each process's threads but its main thread (0 for " + 'none)',
    async () => {
      const first = readCpu([process.pid, undefined])!;
      // 200 ms of CPU on a thread of this process other than its main thread: counted.
      const burner = new Worker(
        'const start = process.cpuUsage(); while (process.cpuUsage(start).user < 200_000) { /* burn */ }',
        { eval: true },
      );
      await new Promise((resolve) => burner.once('exit', resolve));
      const second = readCpu([process.pid, undefined])!;
      expect(second.idleTicks).toBeGreaterThanOrEqual(first.idleTicks);
      expect(second.workerTicks[0] - first.workerTicks[0]).toBeGreaterThanOrEqual(10);
      expect(second.workerTicks[1]).toBe(0);
      // 200 ms of CPU on the main thread (its own figure, from /proc): not counted (the main thread of
      // the SCHED_IDLE worker runs at normal priority, paid for by normal work).
      const mainTicks = () => procStatField(readFileSync(`/proc/${process.pid}/task/${process.pid}/stat`, 'utf8'), 14);
      const mainBefore = mainTicks();
      while (mainTicks() < mainBefore + 20) {
        // burn on this thread
      }
      const third = readCpu([process.pid])!;
      expect(third.workerTicks[0] - second.workerTicks[0]).toBeLessThan(10);
      expect(readCpu([-1])!.workerTicks).toEqual([0]);
    },
  );
});

/** Readings of [the SCHED_IDLE worker], as the supervisor takes them for the verdicts. */
describe('the verdicts of one sampling window', () => {
  it('says the SCHED_IDLE worker starved only when it had work and nobody but normal work got CPU', () => {
    const busy = [reading(1_000, [0], 0), reading(1_001, [2], 1_000)] as const;
    expect(judgeWindow(...busy, true)).toEqual({ saturated: true, schedIdleStarved: true });
    // A busy moment while it had nothing to do is no verdict on it.
    expect(judgeWindow(...busy, false)).toEqual({ saturated: true, schedIdleStarved: false });
  });

  it('calls neither when the SCHED_IDLE worker got its share', () => {
    expect(judgeWindow(reading(1_000, [0], 0), reading(1_000, [30], 1_000), true)).toEqual({
      saturated: false,
      schedIdleStarved: false,
    });
  });
});

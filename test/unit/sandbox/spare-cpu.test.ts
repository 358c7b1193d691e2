// What CPU normal work left over between two readings: the machine's idle time plus what the
// counted workers got (only CPU nobody else wanted pays for a SCHED_IDLE worker; a nice-19 one
// takes its share from normal work, so the supervisor neither reads nor counts it). The verdicts:
// is there CPU to spare, and did the SCHED_IDLE worker starve while it had work?
import { describe, it, expect } from 'vitest';
import { judgeWindow, readCpu, saturatedBetween, spareCoresBetween, SPARE_CORE_SHARE } from '../../../host/sandbox/spare-cpu.ts';

/** Readings of [the nice-19 worker, the SCHED_IDLE worker]. */
const reading = (idleTicks: number, workerTicks: number[], at: number) => ({ idleTicks, workerTicks, at });
const BOTH = [0, 1];
const SCHED_IDLE_ONLY = [1];

describe('spare CPU for the offenders\' workers', () => {
  it('counts a machine with idle time as having CPU to spare', () => {
    expect(saturatedBetween(reading(1_000, [0, 0], 0), reading(1_050, [0, 0], 1_000), BOTH)).toBe(false);
    expect(spareCoresBetween(reading(1_000, [0, 0], 0), reading(1_050, [0, 0], 1_000), BOTH)).toBeCloseTo(0.5);
  });

  it('counts what the SCHED_IDLE worker got as spare, so its own spinning does not look like saturation', () => {
    expect(saturatedBetween(reading(1_000, [0, 500], 0), reading(1_000, [0, 580], 1_000), BOTH)).toBe(false);
    expect(saturatedBetween(reading(1_000, [0, 500], 0), reading(1_000, [0, 580], 1_000), SCHED_IDLE_ONLY)).toBe(false);
  });

  it('counts what the nice-19 worker got as spare when asked to, so offenders spinning there do not look like saturation', () => {
    expect(saturatedBetween(reading(1_000, [200, 0], 0), reading(1_000, [350, 0], 1_000), BOTH)).toBe(false);
    expect(saturatedBetween(reading(1_000, [200, 0], 0), reading(1_000, [350, 0], 1_000), SCHED_IDLE_ONLY)).toBe(true);
  });

  it('calls the machine saturated when neither idle time nor the counted workers got a twentieth of a core', () => {
    const ticks = Math.floor(SPARE_CORE_SHARE * 100) - 1;
    expect(saturatedBetween(reading(1_000, [0, 500], 0), reading(1_000, [0, 500 + ticks], 1_000), BOTH)).toBe(true);
    expect(saturatedBetween(reading(1_000, [100, 500], 0), reading(1_000, [100, 500 + ticks + 1], 1_000), BOTH)).toBe(false);
    expect(saturatedBetween(reading(1_000, [0, 500], 0), reading(1_000 + ticks + 1, [0, 500], 1_000), BOTH)).toBe(false);
  });

  it('counts a restarted worker from zero and never calls an empty window saturated', () => {
    expect(saturatedBetween(reading(1_000, [0, 900], 0), reading(1_000, [0, 10], 1_000), BOTH)).toBe(false);
    expect(saturatedBetween(reading(1_000, [0, 0], 5), reading(1_000, [0, 0], 5), BOTH)).toBe(false);
  });

  it('reads this machine\'s idle ticks and each process\'s own CPU ticks from /proc (0 for none)', () => {
    const first = readCpu([process.pid, undefined])!;
    const until = performance.now() + 60;
    while (performance.now() < until) {
      // burn a few ticks of this process
    }
    const second = readCpu([process.pid, undefined])!;
    expect(second.idleTicks).toBeGreaterThanOrEqual(first.idleTicks);
    expect(second.workerTicks[0]).toBeGreaterThan(first.workerTicks[0]);
    expect(second.workerTicks[1]).toBe(0);
    expect(readCpu([-1])!.workerTicks).toEqual([0]);
  });
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
    expect(judgeWindow(reading(1_000, [0], 0), reading(1_000, [30], 1_000), true)).toEqual({ saturated: false, schedIdleStarved: false });
  });
});

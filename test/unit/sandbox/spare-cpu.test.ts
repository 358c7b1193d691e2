// Whether a SCHED_IDLE worker would get CPU: the spare CPU between two readings is the machine's
// idle time plus what the SCHED_IDLE worker itself got (only spare CPU pays for it).
import { describe, it, expect } from 'vitest';
import { readCpu, saturatedBetween, SPARE_CORE_SHARE } from '../../../host/sandbox/spare-cpu.ts';

const reading = (idleTicks: number, workerTicks: number, at: number) => ({ idleTicks, workerTicks, at });

describe('spare CPU for a SCHED_IDLE worker', () => {
  it('counts a machine with idle time as having CPU to spare', () => {
    expect(saturatedBetween(reading(1_000, 0, 0), reading(1_050, 0, 1_000))).toBe(false);
  });

  it('counts what the SCHED_IDLE worker got as spare, so its own spinning does not look like saturation', () => {
    expect(saturatedBetween(reading(1_000, 500, 0), reading(1_000, 580, 1_000))).toBe(false);
  });

  it('calls the machine saturated when neither idle time nor the worker got a twentieth of a core', () => {
    const ticks = Math.floor(SPARE_CORE_SHARE * 100) - 1;
    expect(saturatedBetween(reading(1_000, 500, 0), reading(1_000, 500 + ticks, 1_000))).toBe(true);
    expect(saturatedBetween(reading(1_000, 500, 0), reading(1_000 + ticks + 1, 500, 1_000))).toBe(false);
  });

  it('counts a restarted worker from zero and never calls an empty window saturated', () => {
    expect(saturatedBetween(reading(1_000, 900, 0), reading(1_000, 10, 1_000))).toBe(false);
    expect(saturatedBetween(reading(1_000, 0, 5), reading(1_000, 0, 5))).toBe(false);
  });

  it('reads this machine\'s idle ticks and a process\'s own CPU ticks from /proc', () => {
    const first = readCpu(process.pid)!;
    const until = performance.now() + 60;
    while (performance.now() < until) {
      // burn a few ticks of this process
    }
    const second = readCpu(process.pid)!;
    expect(second.idleTicks).toBeGreaterThanOrEqual(first.idleTicks);
    expect(second.workerTicks).toBeGreaterThan(first.workerTicks);
    expect(readCpu(undefined)!.workerTicks).toBe(0);
  });
});

// The demotion ladder: a first offence of any kind moves an integration to the nice-19 worker; only
// CPU burnt again there sends it on to the SCHED_IDLE worker, and only where that policy is available.
import { describe, it, expect } from 'vitest';
import { burnedCpu, CPU_EVIDENCE_MS, demotionTarget, timeoutIsOffence } from '../../../host/offenders/demotion.ts';

describe('the demotion ladder', () => {
  it('moves any first offence from a regular worker to the nice-19 worker, CPU or not', () => {
    expect(demotionTarget('regular', false, true)).toBe('nice19');
    expect(demotionTarget('regular', true, true)).toBe('nice19');
    expect(demotionTarget('regular', true, false)).toBe('nice19');
  });

  it('moves an offender on to the SCHED_IDLE worker only when it burned CPU again', () => {
    expect(demotionTarget('nice19', true, true)).toBe('sched-idle');
    // A timeout while awaiting, a crash, a memory kill that did not spin: it stays at nice 19.
    expect(demotionTarget('nice19', false, true)).toBeUndefined();
  });

  it('keeps CPU offenders at nice 19 where SCHED_IDLE is unavailable', () => {
    expect(demotionTarget('nice19', true, false)).toBeUndefined();
  });

  it("never moves from the SCHED_IDLE worker or a crash suspect's own worker", () => {
    expect(demotionTarget('sched-idle', true, true)).toBeUndefined();
    expect(demotionTarget('sched-idle', false, true)).toBeUndefined();
    expect(demotionTarget('solitary', true, true)).toBeUndefined();
  });

  it("does not count a timeout whose deadline passed before any of the integration's code ran", () => {
    expect(timeoutIsOffence({ beforeGuest: true })).toBe(false);
    expect(timeoutIsOffence({ beforeGuest: false })).toBe(true);
    expect(timeoutIsOffence({})).toBe(true);
  });

  it('counts a failure as CPU evidence from one sampling period of execution on', () => {
    expect(burnedCpu(undefined)).toBe(false);
    expect(burnedCpu(0)).toBe(false);
    expect(burnedCpu(CPU_EVIDENCE_MS - 1)).toBe(false);
    expect(burnedCpu(CPU_EVIDENCE_MS)).toBe(true);
    expect(burnedCpu(998)).toBe(true);
  });
});

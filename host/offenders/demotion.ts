// Where an offence moves an integration: the ladder regular worker → nice-19 offenders' worker →
// SCHED_IDLE worker, and what counts as evidence that it burned CPU. Pure; the supervisor moves.

/** Where an integration runs now, as far as demotion is concerned. */
export type Tier = 'regular' | 'nice19' | 'sched-idle' | 'solitary';

/**
 * A failure counts as CPU evidence when the isolate executed at least this much in its busy period
 * (one period of the hog sampler): a spinning loop or an allocation storm, not a dispatch that sat
 * awaiting a fetch until its deadline.
 */
export const CPU_EVIDENCE_MS = 100;

/**
 * Whether a timeout is the integration's offence (counted by the timeout breaker, a reason to
 * demote): not when its deadline passed before any of its code ran (`beforeGuest`: an offenders'
 * worker was still building its realm on threads the offenders' quota holds), which is the host's
 * slowness and the other offenders', never this integration's doing.
 */
export function timeoutIsOffence(result: { beforeGuest?: boolean }): boolean {
  return result.beforeGuest !== true;
}

export function burnedCpu(executedMs: number | undefined): boolean {
  return executedMs !== undefined && executedMs >= CPU_EVIDENCE_MS;
}

/**
 * The tier an offence moves an integration to, or undefined when it stays. Any first offence
 * (timeout, memory kill, crash, hog report) moves it from a regular worker to the nice-19 one,
 * where it still gets a share of a saturated machine; only one that burns CPU again there (so twice
 * in all) goes on to the SCHED_IDLE worker, where it no longer delays a neighbour's wake-up but can
 * starve while normal work saturates the machine. Nothing moves an integration up the ladder here
 * (the supervisor's way out of a starved SCHED_IDLE worker is its own rule), and a crash suspect on
 * a worker of its own stays there for its probation.
 */
export function demotionTarget(
  current: Tier,
  cpuEvidence: boolean,
  schedIdleAvailable: boolean,
): 'nice19' | 'sched-idle' | undefined {
  if (current === 'regular') return 'nice19';
  if (current === 'nice19' && cpuEvidence && schedIdleAvailable) return 'sched-idle';
  return undefined;
}

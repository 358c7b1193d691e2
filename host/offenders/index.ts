// The one entry point of the offenders' scheduling policy (Linux priorities, SCHED_IDLE, the CPU
// quota's cgroup, spare-CPU sampling, the demotion ladder) for the rest of host/. It never imports
// the sandbox: the supervisor decides who offends and moves them; this folder says how they run.

export { DEFAULT_OFFENDER_CPU_QUOTA_PERCENT, MAX_OFFENDER_CPU_QUOTA_PERCENT } from './cpu-quota.ts';
export { burnedCpu, demotionTarget, timeoutIsOffence, type Tier } from './demotion.ts';
export { GuestThreads } from './guest-threads.ts';
export { sendingBudget } from './offender-budget.ts';
export {
  OffenderScheduling,
  STARVED_HOLD_MS,
  type OffenderSchedulingOptions,
  type SchedIdleProbe,
} from './offender-scheduling.ts';
export { loweringProblem, type WorkerPriority } from './sched-policy.ts';

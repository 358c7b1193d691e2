// Whether the machine has CPU to spare for the SCHED_IDLE worker, and whether that worker starves:
// sampled from /proc/stat (idle time of every core) plus what that worker's guest threads got (only
// CPU normal work left over pays for them; its main thread runs at nice 10, above them, and is not
// counted). Reads /proc only; it never moves anything (the supervisor does).

import { readFileSync } from 'node:fs';
import { procStatField } from './sched-policy.ts';

/** Below this share of one core spare over the last window, SCHED_IDLE work would starve. */
export const SPARE_CORE_SHARE = 0.05;
/** Clock ticks per second of /proc (USER_HZ: 100 on every Linux architecture Node runs on). */
const TICKS_PER_SECOND = 100;

export interface CpuReading {
  /** Idle and iowait ticks of all cores (/proc/stat's `cpu` line). */
  idleTicks: number;
  /**
   * User and system ticks of each process asked for (fields 14 and 15 of /proc/<pid>/stat), less
   * those of its main thread (/proc/<pid>/task/<pid>/stat), in that order; 0 for one that is missing.
   */
  workerTicks: number[];
  /** performance.now() of the reading. */
  at: number;
}

function ticksOf(stat: string): number {
  return procStatField(stat, 14) + procStatField(stat, 15);
}

/** What a process's threads other than its main one got (ended threads included: the process's figure keeps them). */
function guestThreadTicks(pid: number | undefined): number {
  if (pid === undefined || pid <= 0) return 0;
  try {
    const all = ticksOf(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    const main = ticksOf(readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8'));
    return Math.max(0, all - main);
  } catch {
    return 0; // a worker restarting: it counts from zero again (see spareCoresBetween)
  }
}

/**
 * Reads the machine's idle ticks and the CPU ticks of each process's guest threads; null where /proc/stat cannot be
 * read.
 */
export function readCpu(pids: readonly (number | undefined)[]): CpuReading | null {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/).slice(1).map(Number);
    return { idleTicks: fields[3] + (fields[4] ?? 0), workerTicks: pids.map(guestThreadTicks), at: performance.now() };
  } catch {
    return null;
  }
}

/**
 * Cores to spare between two readings: the machine's idle time plus the ticks of the processes at
 * `counted` (indexes into workerTicks), which only CPU that normal work left over pays for. A
 * process restarted in between (its ticks went down) counts from zero. Infinity for an empty window.
 */
export function spareCoresBetween(before: CpuReading, after: CpuReading, counted: readonly number[]): number {
  const seconds = (after.at - before.at) / 1000;
  if (seconds <= 0) return Infinity;
  let ticks = after.idleTicks - before.idleTicks;
  for (const index of counted) {
    const now = after.workerTicks[index] ?? 0;
    const then = before.workerTicks[index] ?? 0;
    ticks += now >= then ? now - then : now;
  }
  return ticks / TICKS_PER_SECOND / seconds;
}

/**
 * Whether what was spare between two readings (see spareCoresBetween) was under SPARE_CORE_SHARE
 * of one core: then normal work saturates the machine and a SCHED_IDLE worker gets next to nothing.
 */
export function saturatedBetween(before: CpuReading, after: CpuReading, counted: readonly number[]): boolean {
  return spareCoresBetween(before, after, counted) < SPARE_CORE_SHARE;
}

/**
 * The two verdicts of one sampling window over readings of the SCHED_IDLE worker
 * (readCpu([schedIdle])). `saturated`: normal work left under SPARE_CORE_SHARE of a core to spare,
 * counting what the SCHED_IDLE worker got as spare (only leftover CPU pays for it). The nice-19
 * worker is not read: a nice-19 thread takes its share from normal work too, and on a machine that
 * normal work saturates that share would go back to it, not to a SCHED_IDLE worker, so counting it
 * could send spinners down on such a machine, where they would then starve. `schedIdleStarved`:
 * saturated while the SCHED_IDLE worker had work at both ends of the window (`hadWork`): a verdict
 * on a worker that had work, never on a quiet moment.
 */
export function judgeWindow(
  before: CpuReading,
  after: CpuReading,
  hadWork: boolean,
): { saturated: boolean; schedIdleStarved: boolean } {
  const saturated = saturatedBetween(before, after, [0]);
  return { saturated, schedIdleStarved: hadWork && saturated };
}

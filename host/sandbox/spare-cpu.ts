// Whether the machine has CPU to spare for a SCHED_IDLE worker: sampled from /proc/stat (idle time
// of every core) plus what that worker itself got (its own time is CPU nobody else wanted). Reads
// /proc only; it never moves anything (the supervisor does).

import { readFileSync } from 'node:fs';
import { procStatField } from './sched-policy.ts';

/** Below this share of one core spare over the last window, SCHED_IDLE work would starve. */
export const SPARE_CORE_SHARE = 0.05;
/** Clock ticks per second of /proc (USER_HZ: 100 on every Linux architecture Node runs on). */
const TICKS_PER_SECOND = 100;

export interface CpuReading {
  /** Idle and iowait ticks of all cores (/proc/stat's `cpu` line). */
  idleTicks: number;
  /** User and system ticks of the SCHED_IDLE worker (fields 14 and 15 of /proc/<pid>/stat); 0 without one. */
  workerTicks: number;
  /** performance.now() of the reading. */
  at: number;
}

/** Reads the machine's idle ticks and a process's CPU ticks; null where /proc cannot be read. */
export function readCpu(pid: number | undefined): CpuReading | null {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/).slice(1).map(Number);
    let workerTicks = 0;
    if (pid !== undefined && pid > 0) {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      workerTicks = procStatField(stat, 14) + procStatField(stat, 15);
    }
    return { idleTicks: fields[3] + (fields[4] ?? 0), workerTicks, at: performance.now() };
  } catch {
    return null;
  }
}

/**
 * Whether the CPU spare between two readings (idle ticks plus the SCHED_IDLE worker's own, which
 * only spare CPU pays for) was under SPARE_CORE_SHARE of one core: then normal work saturates the
 * machine and a SCHED_IDLE worker gets next to nothing. A worker restarted in between (its ticks
 * went down) counts from zero.
 */
export function saturatedBetween(before: CpuReading, after: CpuReading): boolean {
  const seconds = (after.at - before.at) / 1000;
  if (seconds <= 0) return false;
  const worker = after.workerTicks >= before.workerTicks ? after.workerTicks - before.workerTicks : after.workerTicks;
  const spareTicks = after.idleTicks - before.idleTicks + worker;
  return spareTicks / TICKS_PER_SECOND / seconds < SPARE_CORE_SHARE;
}

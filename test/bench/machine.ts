// What the machine is doing while the bench runs: whole-machine busy CPU from /proc/stat, a
// process's CPU (all threads) from /proc/<pid>/stat, the load average, and a wait for a quiet
// machine. Linux only; elsewhere the figures read as 0 and the bench says so.

import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';

/** Clock ticks per second of /proc times (USER_HZ; 100 on every Linux the project runs on). */
const TICK_US = 10_000;

function read(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/**
 * Busy CPU of the whole machine in µs, all cores: user, nice, system, irq, softirq, steal (loopback softirq counts
 * too).
 */
export function machineBusyUs(): number {
  const line = read('/proc/stat')?.split('\n')[0];
  if (line === undefined) return 0;
  const f = line.trim().split(/\s+/).slice(1).map(Number);
  return (f[0] + f[1] + f[2] + f[5] + f[6] + f[7]) * TICK_US;
}

/** user + system CPU of the processes (every thread), in µs; a vanished process counts 0. */
export function processCpuUs(pids: number[]): number {
  let ticks = 0;
  for (const pid of pids) {
    const stat = read(`/proc/${pid}/stat`);
    if (stat === null) continue;
    // Fields after the command name, which may contain spaces and is closed by the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks * TICK_US;
}

export function loadAverage(): number[] {
  return loadavg().map((value) => Math.round(value * 100) / 100);
}

/** Cores busy over the next `ms` (whole machine). */
export async function busyCores(ms = 1_000): Promise<number> {
  const before = machineBusyUs();
  await new Promise((resolve) => setTimeout(resolve, ms));
  return (machineBusyUs() - before) / 1_000 / ms;
}

/**
 * Waits until the rest of the machine uses less than `threshold` cores over one second, or
 * `maxWaitMs` passed. Returns the cores busy in the last second (what the round starts with).
 */
export async function waitQuiet(threshold = 0.15, maxWaitMs = 20_000): Promise<number> {
  const deadline = Date.now() + maxWaitMs;
  for (;;) {
    const busy = await busyCores();
    if (busy < threshold || Date.now() >= deadline) return busy;
  }
}

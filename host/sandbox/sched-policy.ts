// Linux scheduling policies of sandbox worker processes: lowering every thread of one to SCHED_IDLE
// (util-linux's `chrt`, no privilege needed) and reading back what each thread runs under. Process
// plumbing only: it never decides which worker is lowered or why.

import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** SCHED_IDLE as /proc reports it (field 41 of a thread's stat; 0 is SCHED_OTHER). */
export const SCHED_IDLE = 5;
export const SCHED_OTHER = 0;

/** The thread ids of a process (Linux /proc); elsewhere just the process id. */
export function threadsOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).map(Number).filter((tid) => Number.isInteger(tid) && tid > 0);
  } catch {
    return [pid];
  }
}

/**
 * Field `n` (1-based, as proc(5) numbers them) of a /proc stat line, from field 3 on: the command
 * name (field 2) may hold spaces and parentheses, so fields are counted after its last `)`.
 */
export function procStatField(stat: string, n: number): number {
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[n - 3]);
}

function statField(pid: number, thread: number, n: number): number {
  return procStatField(readFileSync(`/proc/${pid}/task/${thread}/stat`, 'utf8'), n);
}

/** The scheduling policy of each thread the process has now (a thread that ends meanwhile is left out); [] without /proc. */
export function threadPolicies(pid: number): number[] {
  let threads: string[];
  try {
    threads = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  return threads.flatMap((thread) => {
    try {
      return [statField(pid, Number(thread), 41)];
    } catch {
      return [];
    }
  });
}

/**
 * Moves every thread the process has now to SCHED_IDLE (threads it creates later inherit it), then
 * reads the policies back: resolves null when all of them are SCHED_IDLE, else why not (no `chrt`,
 * a kernel or sandbox that refuses it), in words for one log line. Never rejects.
 */
export function lowerToSchedIdle(pid: number, command = 'chrt'): Promise<string | null> {
  return new Promise((resolve) => {
    execFile(command, ['--all-tasks', '--idle', '--pid', '0', String(pid)], { timeout: 5_000 }, (error, _stdout, stderr) => {
      if (error !== null) {
        const code = (error as NodeJS.ErrnoException).code;
        resolve(code === 'ENOENT' ? `\`${command}\` (util-linux) is not installed` : `\`${command} --idle\` failed: ${(stderr || error.message).trim().split('\n')[0]}`);
        return;
      }
      const policies = threadPolicies(pid);
      if (policies.length === 0) resolve('the threads\' policies cannot be read from /proc');
      else if (policies.some((policy) => policy !== SCHED_IDLE)) resolve(`${policies.filter((policy) => policy !== SCHED_IDLE).length} of ${policies.length} threads did not take the policy`);
      else resolve(null);
    });
  });
}

// Linux scheduling of sandbox worker processes: lowering the threads that run guest code (every
// thread but the process's main thread) to nice 19 and, for one worker, SCHED_IDLE (util-linux's
// `chrt`, no privilege needed), and reading back what each thread runs under. Process plumbing
// only: it never decides which worker is lowered or why, and it never lowers a main thread.

import { execFile } from 'node:child_process';
import { setPriority } from 'node:os';
import { readdirSync, readFileSync } from 'node:fs';
import type { BatchOutcome, SchedIdleHelper } from './sched-idle-helper.ts';

/** SCHED_IDLE as /proc reports it (field 41 of a thread's stat; 0 is SCHED_OTHER). */
export const SCHED_IDLE = 5;
export const SCHED_OTHER = 0;
/** The nice value of lowered threads (the lowest there is). */
export const LOWERED_NICE = 19;
/**
 * The nice value of a lowered worker's main thread: above its guest threads (nice 19, or SCHED_IDLE,
 * below every nice value), so its deadline timer and 504s never wait behind its own spinners; below
 * normal work, so the host work attackers cause there (isolate starts and disposals, IPC) weighs a
 * tenth of a neighbour's (weights 110 and 1024; nice 19 is 15).
 */
export const LOWERED_MAIN_NICE = 10;

/**
 * How a worker's guest threads compete for CPU: `normal`; `nice19` (offenders and solitary
 * suspects, which then compete only with each other); `sched-idle` (nice 19 and then the
 * SCHED_IDLE policy: integrations that kept burning CPU after their first demotion). A nice-19
 * thread that holds a core still keeps a woken normal thread waiting for the rest of its time slice,
 * and the kernel does not count that core as free when it places the woken one; a SCHED_IDLE thread
 * gives way at once. The price: on a machine that normal work saturates, SCHED_IDLE gets almost no
 * CPU (the supervisor then moves its integrations back to nice 19: spare-cpu.ts, supervisor.ts).
 * The threads other than the worker's main thread go to nice 19 (and SCHED_IDLE): guest code never
 * runs on the main thread (isolated-vm runs each isolate on threads of its own pool), and the main
 * thread runs what a lowered worker must still do on time: the deadline timer, the 504, IPC. It
 * goes to nice 10 only (LOWERED_MAIN_NICE).
 */
export type WorkerPriority = 'normal' | 'nice19' | 'sched-idle';

/** The thread ids of a process (Linux /proc); elsewhere just the process id. */
export function threadsOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`)
      .map(Number)
      .filter((tid) => Number.isInteger(tid) && tid > 0);
  } catch {
    return [pid];
  }
}

/** The threads of a process other than its main thread (tid == pid): those that are lowered. */
export function guestThreadsOf(pid: number): number[] {
  return threadsOf(pid).filter((tid) => tid !== pid);
}

/**
 * Field `n` (1-based, as proc(5) numbers them) of a /proc stat line, from field 3 on: the command
 * name (field 2) may hold spaces and parentheses, so fields are counted after its last `)`.
 */
export function procStatField(stat: string, n: number): number {
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[n - 3]);
}

/** Field `n` of one thread's stat; NaN when the thread is gone. */
export function threadStatField(pid: number, thread: number, n: number): number {
  try {
    return procStatField(readFileSync(`/proc/${pid}/task/${thread}/stat`, 'utf8'), n);
  } catch {
    return NaN;
  }
}

/**
 * The scheduling policy of each thread the process has now (a thread that ends meanwhile is left out); [] without
 * /proc.
 */
export function threadPolicies(pid: number, threads: readonly number[] = threadsOf(pid)): number[] {
  return threads.map((thread) => threadStatField(pid, thread, 41)).filter((policy) => !Number.isNaN(policy));
}

/**
 * How long a SCHED_IDLE worker's new thread may run before it is under SCHED_IDLE: the worker puts
 * a thread there once it lived SETTLE_MS (guest-threads.ts), at its next look (every 100 ms), and a
 * busy machine delays both. A worker creates threads right after it says it is ready (its warm
 * pool's first realms), so a readback that came that much later found them still unlowered.
 */
export const LOWERING_GRACE_MS = 1_000;

/** Linux's USER_HZ: the clock ticks of /proc's start times (100 on every architecture Linux exposes to user space). */
const TICKS_PER_SECOND = 100;

/** Milliseconds since `thread` of `pid` started; NaN when it is gone or /proc cannot be read. */
export function threadAgeMs(pid: number, thread: number): number {
  try {
    const uptimeSeconds = Number(readFileSync('/proc/uptime', 'utf8').split(' ')[0]);
    return uptimeSeconds * 1_000 - (threadStatField(pid, thread, 22) * 1_000) / TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}

/** The threads old enough to be lowered by now (see LOWERING_GRACE_MS); those of unknown age count as old. */
export function settledThreads(
  threads: readonly number[],
  ageMs: (thread: number) => number,
  graceMs = LOWERING_GRACE_MS,
): number[] {
  return threads.filter((thread) => !(ageMs(thread) < graceMs));
}

/**
 * Whether a worker's threads run as `priority` says (see WorkerPriority): null when they do, else
 * what is wrong, in words for one log line. Threads that ended meanwhile are left out, and so are
 * threads younger than LOWERING_GRACE_MS, which the worker lowers itself once they settled.
 */
export function loweringProblem(
  pid: number,
  priority: WorkerPriority,
  ageMs: (thread: number) => number = (thread) => threadAgeMs(pid, thread),
): string | null {
  if (priority === 'normal') return null;
  if (threadStatField(pid, pid, 19) === LOWERED_NICE) return 'the main thread runs at nice 19 too';
  const main = threadStatField(pid, pid, 41);
  if (Number.isNaN(main)) return "the threads' policies cannot be read from /proc";
  if (priority === 'sched-idle') {
    if (main === SCHED_IDLE) return 'the main thread runs under SCHED_IDLE too';
    const policies = threadPolicies(pid, settledThreads(guestThreadsOf(pid), ageMs));
    const off = policies.filter((policy) => policy !== SCHED_IDLE).length;
    if (off > 0) return `${off} of ${policies.length} guest threads did not take the policy`;
  }
  return null;
}

/** Renices the given threads of this machine to nice 19 (synchronous; no process is spawned). */
export function reniceThreads(threads: readonly number[]): void {
  for (const thread of threads) {
    try {
      setPriority(thread, LOWERED_NICE);
    } catch {
      // Gone meanwhile, or renicing forbidden here.
    }
  }
}

/**
 * Lowers the given threads of this machine to nice 19 and, for `sched-idle`, to SCHED_IDLE (`command`
 * once per thread, run by `helper`'s long-lived `sh` when one is given, else by one `sh` spawned for
 * this batch), then reads them back: resolves null when every one still alive runs as asked, else
 * why not (no `chrt`, a kernel or sandbox that refuses it). A thread that ends meanwhile is no
 * failure. Never rejects. Renicing that a sandbox forbids is ignored: the separation into its own
 * process still holds.
 */
export function lowerThreads(
  pid: number,
  threads: readonly number[],
  priority: Exclude<WorkerPriority, 'normal'>,
  command = 'chrt',
  helper?: SchedIdleHelper,
): Promise<string | null> {
  reniceThreads(threads);
  if (priority !== 'sched-idle' || threads.length === 0) return Promise.resolve(null);
  const ran = helper !== undefined ? helper.lower(threads) : runOnce(threads, command);
  return ran.then(({ error, output }) => {
    if (error !== undefined) return error;
    const policies = threadPolicies(pid, threads);
    const off = policies.filter((policy) => policy !== SCHED_IDLE).length;
    if (off === 0) return null;
    const said = output.trim() ? ` (\`${command} --idle\`: ${output.trim().split('\n')[0]})` : '';
    return `${off} of ${policies.length} threads did not take the policy${said}`;
  });
}

/**
 * One `sh` running `command --idle` for each thread (a thread that ended meanwhile makes one run fail, which the
 * readback forgives).
 */
function runOnce(threads: readonly number[], command: string): Promise<BatchOutcome> {
  // $0 is the command.
  const script =
    'command -v "$0" >/dev/null 2>&1 || exit 127; for t do "$0" --idle --pid 0 "$t" 2>&1 >/dev/null; done; exit 0';
  return new Promise((resolve) => {
    execFile('sh', ['-c', script, command, ...threads.map(String)], { timeout: 5_000 }, (error, stdout) => {
      if (error === null) return resolve({ output: stdout });
      const code = (error as { code?: unknown }).code;
      resolve({
        error:
          code === 127
            ? `\`${command}\` (util-linux) is not installed`
            : `\`${command} --idle\` could not be run: ${error.message.trim().split('\n')[0]}`,
        output: '',
      });
    });
  });
}

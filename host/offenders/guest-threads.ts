// Inside a lowered sandbox worker: keeps every thread but its own main thread lowered (nice 19, and
// SCHED_IDLE in the SCHED_IDLE worker), including threads created later; the main thread goes to
// nice 10, above them (sched-policy.ts LOWERED_MAIN_NICE). Threads inherit their
// creator's priority, and isolated-vm's pool threads (and the one-off threads it starts when all of
// them are busy) are created by the main thread, which stays above them: so the worker
// looks again whenever it has just handed an isolate work. The main thread never goes below nice 10.
// With an offenders' CPU quota (cpu-quota.ts), the same threads, and only they, go into its group,
// moved there by a helper shell (quota-placer.ts) so this thread never waits for the cgroup write.
// SCHED_IDLE takes a run of `chrt` (sched-idle-helper.ts), so after start-up it is given only to
// threads that lived on for SETTLE_MS (see below); renicing is immediate for every thread, the quota
// follows as soon as the helper shell has written it.

import { readdirSync } from 'node:fs';
import { setPriority } from 'node:os';
import { LOWERED_MAIN_NICE, lowerThreads, reniceThreads, type WorkerPriority } from './sched-policy.ts';
import { QuotaPlacer } from './quota-placer.ts';
import { SchedIdleHelper } from './sched-idle-helper.ts';

/**
 * How long a thread made after start-up must have lived before it is put under SCHED_IDLE. Most
 * threads a worker makes are isolated-vm's watchdogs of calls with a `timeout` (an isolate start
 * makes several) and end within milliseconds, asleep all along: a `chrt` run for each is CPU at
 * nice 10 outside the quota spent on threads that never run a guest (when each was a fork of this
 * process, 3–10 ms of this thread and as much again in `sh` and `chrt`, about 4 a second while
 * attackers kept timing out: docs/performance.md). A thread
 * that runs guest code lives on: it is at nice 19 and under the quota from the first look, and
 * under SCHED_IDLE at the first look (at most HOG_SAMPLE_MS apart, worker.ts) after this.
 */
export const SETTLE_MS = 50;

/**
 * After the placing shell itself failed (gone, stuck), how long before threads are sent to a new one (each start forks
 * this process).
 */
export const PLACER_RETRY_MS = 10_000;

export class GuestThreads {
  private readonly pid: number;
  private readonly priority: Exclude<WorkerPriority, 'normal'>;
  private readonly command: string;
  private readonly onProblem: (problem: string) => void;
  /** Moves new threads into the offenders' group, when the host has a CPU quota for offenders. */
  private readonly placer: QuotaPlacer | undefined;
  private readonly onQuotaProblem: (problem: string) => void;
  private quotaProblemSaid = false;
  /** Threads lowered already (pruned of those that ended, so a reused id is lowered again). */
  private readonly lowered = new Set<number>();
  /** Threads in the quota group, and those on their way (pruned alike): the rest are sent again at the next look. */
  private readonly placed = new Set<number>();
  private readonly placing = new Set<number>();
  /** When the placing shell last failed (performance.now()), or -Infinity. */
  private placerFailedAt = -Infinity;
  private scheduled = false;
  private problemSaid = false;
  private mainLowered = false;
  /** Threads reniced already but not yet under SCHED_IDLE → when they were first seen (performance.now()). */
  private readonly unsettled = new Map<number, number>();
  private readonly now: () => number;
  /** Runs `chrt` for the SCHED_IDLE worker's threads without forking this process each time. */
  private readonly helper: SchedIdleHelper | undefined;

  constructor(options: {
    priority: Exclude<WorkerPriority, 'normal'>;
    command?: string;
    pid?: number;
    quotaTasks?: string;
    onProblem(problem: string): void;
    onQuotaProblem?(problem: string): void;
    now?: () => number;
  }) {
    this.pid = options.pid ?? process.pid;
    this.now = options.now ?? (() => performance.now());
    this.placer = options.quotaTasks !== undefined ? new QuotaPlacer(options.quotaTasks, this.pid) : undefined;
    this.onQuotaProblem = options.onQuotaProblem ?? options.onProblem;
    this.priority = options.priority;
    this.command = options.command ?? 'chrt';
    this.onProblem = options.onProblem;
    this.helper = this.priority === 'sched-idle' ? new SchedIdleHelper(this.command, this.pid) : undefined;
  }

  /**
   * Lowers the threads that appeared since the last look (at nice 19 at once; SCHED_IDLE once the
   * command ran): resolves null, or why they could not all be lowered (said once through onProblem too).
   */
  check(): Promise<string | null> {
    const first = !this.mainLowered;
    if (!this.mainLowered) {
      this.mainLowered = true;
      try {
        // The main thread only (tid == pid); threads it creates from now on start at nice 10.
        setPriority(this.pid, LOWERED_MAIN_NICE);
      } catch {
        // Renicing forbidden here: it stays at normal priority, still above its guest threads.
      }
    }
    let threads: number[];
    try {
      threads = readdirSync(`/proc/${this.pid}/task`).map(Number);
    } catch {
      return Promise.resolve(null); // no /proc: nothing to lower per thread here
    }
    const present = new Set(threads);
    for (const thread of this.lowered) if (!present.has(thread)) this.lowered.delete(thread);
    for (const thread of this.unsettled.keys()) if (!present.has(thread)) this.unsettled.delete(thread);
    for (const thread of this.placed) if (!present.has(thread)) this.placed.delete(thread);
    const fresh = threads.filter((thread) => thread !== this.pid && !this.lowered.has(thread));
    for (const thread of fresh) this.lowered.add(thread);
    // Every guest thread not yet in the group nor on its way: new ones, and those a failed write left out.
    const unplaced = threads.filter(
      (thread) => thread !== this.pid && !this.placed.has(thread) && !this.placing.has(thread),
    );
    const placer = this.now() - this.placerFailedAt >= PLACER_RETRY_MS ? this.placer : undefined;
    const placed = unplaced.length > 0 && placer !== undefined ? this.place(placer, unplaced) : Promise.resolve();
    return Promise.all([placed, this.lowerFresh(first, fresh)]).then(([, problem]) => problem);
  }

  /**
   * Moves `threads` into the quota group off this thread: a cgroup v1 `tasks` write can wait for an
   * RCU grace period (8–18 ms measured on one machine, about 1 ms on another), which this thread's
   * deadline timer must not wait for. Until the shell has written them they run outside the quota,
   * at nice 19 already; one the write left out is sent again at the next look (PLACER_RETRY_MS
   * later when the shell itself failed).
   */
  private place(placer: QuotaPlacer, threads: number[]): Promise<void> {
    for (const thread of threads) this.placing.add(thread);
    return placer.place(threads).then(({ placed, problem, shellFailed }) => {
      for (const thread of threads) this.placing.delete(thread);
      for (const thread of placed) this.placed.add(thread);
      if (shellFailed) this.placerFailedAt = this.now();
      if (problem !== null && !this.quotaProblemSaid) {
        this.quotaProblemSaid = true;
        this.onQuotaProblem(problem);
      }
    });
  }

  /** Renices and (for SCHED_IDLE) settles the threads; resolves null or why they could not all be lowered. */
  private lowerFresh(first: boolean, fresh: number[]): Promise<string | null> {
    // At start-up every thread goes under SCHED_IDLE at once (the worker says it is ready only then);
    // later ones are reniced now and put under SCHED_IDLE once they lived SETTLE_MS (see there).
    if (this.priority !== 'sched-idle' || first)
      return fresh.length === 0 ? Promise.resolve(null) : this.lower(fresh, this.priority);
    const now = this.now();
    if (fresh.length > 0) {
      reniceThreads(fresh);
      for (const thread of fresh) this.unsettled.set(thread, now);
    }
    const settled = [...this.unsettled].filter(([, seen]) => now - seen >= SETTLE_MS).map(([thread]) => thread);
    if (settled.length === 0) return Promise.resolve(null);
    for (const thread of settled) this.unsettled.delete(thread);
    return this.lower(settled, 'sched-idle');
  }

  /** Lowers `threads` as `priority` says; a problem is said once through onProblem. */
  private lower(threads: number[], priority: Exclude<WorkerPriority, 'normal'>): Promise<string | null> {
    return lowerThreads(this.pid, threads, priority, this.command, this.helper).then((problem) => {
      if (problem !== null && !this.problemSaid) {
        this.problemSaid = true;
        this.onProblem(problem);
      }
      return problem;
    });
  }

  /**
   * Looks once the current turn's work is done (its microtasks too, where isolated-vm hands work to
   * a thread): a thread it created runs at the main thread's priority until then.
   */
  soon(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.check();
    });
  }
}

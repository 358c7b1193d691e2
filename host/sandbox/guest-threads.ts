// Inside a lowered sandbox worker: keeps every thread but its own main thread lowered (nice 19, and
// SCHED_IDLE in the SCHED_IDLE worker), including threads created later; the main thread goes to
// nice 10, above them (sched-policy.ts LOWERED_MAIN_NICE). Threads inherit their
// creator's priority, and isolated-vm's pool threads (and the one-off threads it starts when all of
// them are busy) are created by the main thread, which stays above them: so the worker
// looks again whenever it has just handed an isolate work. The main thread never goes below nice 10.
// With an offenders' CPU quota (cpu-quota.ts), the same threads, and only they, go into its group.

import { readdirSync } from 'node:fs';
import { setPriority } from 'node:os';
import { LOWERED_MAIN_NICE, lowerThreads, type WorkerPriority } from './sched-policy.ts';
import { placeThreads } from './cpu-quota.ts';

export class GuestThreads {
  private readonly pid: number;
  private readonly priority: Exclude<WorkerPriority, 'normal'>;
  private readonly command: string;
  private readonly onProblem: (problem: string) => void;
  /** The offenders' group's `tasks` file, when the host has a CPU quota for offenders. */
  private readonly quotaTasks: string | undefined;
  private readonly onQuotaProblem: (problem: string) => void;
  private quotaProblemSaid = false;
  /** Threads lowered already (pruned of those that ended, so a reused id is lowered again). */
  private readonly lowered = new Set<number>();
  private scheduled = false;
  private problemSaid = false;
  private mainLowered = false;

  constructor(options: { priority: Exclude<WorkerPriority, 'normal'>; command?: string; pid?: number; quotaTasks?: string; onProblem(problem: string): void; onQuotaProblem?(problem: string): void }) {
    this.pid = options.pid ?? process.pid;
    this.quotaTasks = options.quotaTasks;
    this.onQuotaProblem = options.onQuotaProblem ?? options.onProblem;
    this.priority = options.priority;
    this.command = options.command ?? 'chrt';
    this.onProblem = options.onProblem;
  }

  /**
   * Lowers the threads that appeared since the last look (at nice 19 at once; SCHED_IDLE once the
   * command ran): resolves null, or why they could not all be lowered (said once through onProblem too).
   */
  check(): Promise<string | null> {
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
    const fresh = threads.filter((thread) => thread !== this.pid && !this.lowered.has(thread));
    if (fresh.length === 0) return Promise.resolve(null);
    for (const thread of fresh) this.lowered.add(thread);
    if (this.quotaTasks !== undefined) {
      // Synchronous writes: a thread goes under the quota before this turn hands it more work.
      const quotaProblem = placeThreads(this.quotaTasks, this.pid, fresh);
      if (quotaProblem !== null && !this.quotaProblemSaid) {
        this.quotaProblemSaid = true;
        this.onQuotaProblem(quotaProblem);
      }
    }
    return lowerThreads(this.pid, fresh, this.priority, this.command).then((problem) => {
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

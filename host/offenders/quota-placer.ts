// Moves a worker's guest threads into the offenders' quota group (cpu-quota.ts) from a long-lived
// `sh` (thread-batch-shell.ts): a cgroup v1 `tasks` write can wait for an RCU grace period, which the
// worker's deadline timer must not. It never decides which threads go in, never moves a main thread.

import { existsSync } from 'node:fs';
import path from 'node:path';
import { threadsInGroup } from './cpu-quota.ts';
import { ThreadBatchShell } from './thread-batch-shell.ts';

export class QuotaPlacer {
  private readonly shell: ThreadBatchShell;
  private readonly tasks: string;
  private readonly pid: number;

  /** `tasks`: the group's tasks file; `pid`: the process whose threads are moved (its main thread never is). */
  constructor(tasks: string, pid: number) {
    this.tasks = tasks;
    this.pid = pid;
    this.shell = new ThreadBatchShell({
      pid,
      arg: tasks,
      precondition: '[ -w "$0" ]',
      // One write per thread id (a write of a process id would move only that thread); the shell's
      // own error text for a failed write goes into the batch's output.
      perThread: '{ echo "$t" > "$0"; } 2>&1',
      describe: (why) =>
        why === 'missing' ? `${tasks} is gone or not writable` : `the shell writing ${tasks} could not be run: ${why}`,
    });
  }

  /**
   * Moves `threads` into the group, then reads the group back: `placed`, the threads now in it;
   * `problem`, null when every one still alive is in it, else why not (one line); `shellFailed`
   * when the shell itself could not run the batch. A thread that ended meanwhile is no failure.
   * Never rejects.
   */
  place(threads: readonly number[]): Promise<{ placed: number[]; problem: string | null; shellFailed?: true }> {
    const moving = threads.filter((thread) => thread !== this.pid);
    if (moving.length === 0) return Promise.resolve({ placed: [], problem: null });
    return this.shell.run(moving).then(({ error, output }) => {
      const held = new Set(threadsInGroup(path.dirname(this.tasks)));
      const placed = moving.filter((thread) => held.has(thread));
      if (error !== undefined)
        return { placed, problem: `cannot move threads into ${this.tasks}: ${error}`, shellFailed: true };
      const missed = moving.filter((thread) => !held.has(thread) && existsSync(`/proc/${this.pid}/task/${thread}`));
      if (missed.length === 0) return { placed, problem: null };
      const said = output.trim().split('\n')[0];
      return {
        placed,
        problem:
          `${missed.length} of ${moving.length} threads are not in ${this.tasks} ` +
          `(thread ${missed[0]}${said ? `: ${said}` : ''})`,
      };
    });
  }

  /** Ends the shell. */
  close(): void {
    this.shell.close();
  }
}

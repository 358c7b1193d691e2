// Moves a worker's new guest threads into the offenders' quota group (cpu-quota.ts) from a
// long-lived `sh` (thread-batch-shell.ts), not from the worker's main thread: a cgroup v1 `tasks`
// write waits for an RCU grace period (8–18 ms here), which the main thread's deadline timer and
// 504s must not wait for. It never decides which threads go in, and never moves a main thread.

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
      arg: tasks,
      precondition: '[ -w "$0" ]',
      // One write per thread id (a write of a process id would move only that thread); the shell's
      // own error text for a failed write goes into the batch's output.
      perThread: '{ echo "$t" > "$0"; } 2>&1',
      describe: (why) => (why === 'missing' ? `${tasks} is gone or not writable` : `the shell writing ${tasks} could not be run: ${why}`),
    });
  }

  /**
   * Moves `threads` into the group, then reads the group back: resolves null when every one still
   * alive is in it, else why not (one line). A thread that ended meanwhile is no failure. Never rejects.
   */
  place(threads: readonly number[]): Promise<string | null> {
    const moving = threads.filter((thread) => thread !== this.pid);
    if (moving.length === 0) return Promise.resolve(null);
    return this.shell.run(moving).then(({ error, output }) => {
      if (error !== undefined) return `cannot move threads into ${this.tasks}: ${error}`;
      const held = new Set(threadsInGroup(path.dirname(this.tasks)));
      const missed = moving.filter((thread) => !held.has(thread) && existsSync(`/proc/${this.pid}/task/${thread}`));
      if (missed.length === 0) return null;
      const said = output.trim().split('\n')[0];
      return `${missed.length} of ${moving.length} threads are not in ${this.tasks} (thread ${missed[0]}${said ? `: ${said}` : ''})`;
    });
  }

  /** Ends the shell. */
  close(): void {
    this.shell.close();
  }
}

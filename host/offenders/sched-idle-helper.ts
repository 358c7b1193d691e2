// One long-lived `sh` per SCHED_IDLE worker that runs util-linux's `chrt --idle` for the thread ids
// it is sent (thread-batch-shell.ts), so that lowering a new thread never forks the worker itself (a
// fork of a Node process with isolates costs its main thread 3–10 ms, docs/performance.md). It
// never decides which threads are lowered, and never touches a main thread.

import { ThreadBatchShell, type BatchOutcome } from './thread-batch-shell.ts';

export type { BatchOutcome } from './thread-batch-shell.ts';

export class SchedIdleHelper {
  private readonly shell: ThreadBatchShell;

  /** `pid`: the process whose threads are lowered (an id no longer its thread is skipped). */
  constructor(command = 'chrt', pid = process.pid) {
    this.shell = new ThreadBatchShell({
      pid,
      arg: command,
      precondition: 'command -v "$0" >/dev/null 2>&1',
      // The command's error text (if any) goes to the batch's output, its own output away.
      perThread: '"$0" --idle --pid 0 "$t" 2>&1 >/dev/null',
      describe: (why) =>
        why === 'missing'
          ? `\`${command}\` (util-linux) is not installed`
          : `\`${command} --idle\` could not be run: ${why}`,
    });
  }

  /** Runs the command for each thread; resolves once all ran (never rejects). */
  lower(threads: readonly number[]): Promise<BatchOutcome> {
    return this.shell.run(threads);
  }

  /** Ends the helper (what is pending resolves as failed). */
  close(): void {
    this.shell.close();
  }
}

// One long-lived `sh` running a fixed script line per thread id it is sent, batch by batch, so acting
// on a worker's new threads never forks the worker nor blocks its main thread. It never decides which
// threads, never acts on an id that is no longer a thread of `pid`, and runs only its owner's script.

import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';

/** How long the oldest batch may wait before the shell is given up (and started afresh next time). */
const BATCH_TIMEOUT_MS = 5_000;
const DONE = '--batch-done--';
const MISSING = '--command-missing--';

/** What one batch came to: `error` when the script could not be run at all, else what it printed (may be empty). */
export interface BatchOutcome {
  error?: string;
  output: string;
}

export interface ThreadBatchShellOptions {
  /** The process whose threads the ids are: an id that is no longer one of its threads is skipped (ids are reused). */
  pid: number;
  /** Checks that must pass before any batch (sh text; `$0` is `arg`): a failure makes every batch fail as `missing`. */
  precondition: string;
  /** Runs once per thread id `$t` (sh text; `$0` is `arg`); what it prints goes into the batch's output. */
  perThread: string;
  /** The one argument the script sees as `$0` (a command, a file): never a thread id. */
  arg: string;
  /** The words for a batch that could not run: `why` is 'missing' when the precondition failed. */
  describe(why: string): string;
  /** Testing aid: how long the oldest batch may wait (default BATCH_TIMEOUT_MS). */
  batchTimeoutMs?: number;
}

interface Batch {
  resolve(outcome: BatchOutcome): void;
  lines: string[];
}

export class ThreadBatchShell {
  private child: ChildProcessByStdio<Writable, Readable, null> | null = null;
  private readonly pending: Batch[] = [];
  private buffered = '';
  private timer: NodeJS.Timeout | null = null;
  private readonly options: ThreadBatchShellOptions;

  constructor(options: ThreadBatchShellOptions) {
    this.options = options;
  }

  /** Runs the script for each thread; resolves once all ran (never rejects). */
  run(threads: readonly number[]): Promise<BatchOutcome> {
    if (threads.length === 0) return Promise.resolve({ output: '' });
    const child = this.child ?? this.start();
    if (child === null) return Promise.resolve({ error: this.options.describe('sh could not be started'), output: '' });
    return new Promise((resolve) => {
      this.pending.push({ resolve, lines: [] });
      // Digits only: the ids are numbers, truncated here, so no line can carry shell text.
      child.stdin.write(`${threads.map((thread) => String(Math.trunc(thread))).join(' ')}\n`);
      // The timer runs for the oldest batch: later batches must not put off giving up a stuck shell.
      if (this.pending.length === 1) this.armTimer();
    });
  }

  /** Ends the shell (what is pending resolves as failed). */
  close(): void {
    this.fail('the helper was closed');
  }

  private start(): ChildProcessByStdio<Writable, Readable, null> | null {
    // $1 is the pid: a thread that ended while its id waited in the queue is skipped, so an id the
    // kernel gave to another thread meanwhile is never acted on.
    const script = `${this.options.precondition} || { echo ${MISSING}; exit 127; }
while IFS= read -r line; do
  for t in $line; do [ -d "/proc/$1/task/$t" ] || continue; ${this.options.perThread}; done
  echo ${DONE}
done`;
    let child: ChildProcessByStdio<Writable, Readable, null>;
    try {
      child = spawn('sh', ['-c', script, this.options.arg, String(Math.trunc(this.options.pid))], {
        stdio: ['pipe', 'pipe', 'ignore'],
      });
    } catch {
      return null;
    }
    this.child = child;
    this.buffered = '';
    // It must never keep a worker alive; it ends itself when the worker's end of stdin closes.
    child.unref();
    (child.stdin as unknown as { unref?(): void }).unref?.();
    (child.stdout as unknown as { unref?(): void }).unref?.();
    // A write after it ended fails here; why it ended comes with 'close' (after its last output).
    child.stdin.on('error', () => undefined);
    child.stdout.setEncoding('utf8');
    // A shell given up on may still flush output: only the current one's counts.
    child.stdout.on('data', (chunk: string) => {
      if (this.child === child) this.take(chunk);
    });
    child.on('error', (error) => this.fail(error.message));
    child.on('close', (code) => {
      if (this.child === child) this.fail(code === 127 ? 'missing' : `sh exited (${code ?? 'signal'})`);
    });
    return child;
  }

  private take(chunk: string): void {
    this.buffered += chunk;
    let newline: number;
    while ((newline = this.buffered.indexOf('\n')) >= 0) {
      const line = this.buffered.slice(0, newline);
      this.buffered = this.buffered.slice(newline + 1);
      if (line === MISSING) return this.fail('missing');
      const head = this.pending[0];
      if (head === undefined) continue;
      if (line !== DONE) {
        head.lines.push(line);
        continue;
      }
      this.pending.shift();
      head.resolve({ output: head.lines.join('\n') });
      this.armTimer();
    }
  }

  private armTimer(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    if (this.pending.length === 0) return;
    const timeoutMs = this.options.batchTimeoutMs ?? BATCH_TIMEOUT_MS;
    this.timer = setTimeout(() => this.fail(`timed out after ${timeoutMs} ms`), timeoutMs);
    this.timer.unref();
  }

  /** Gives the shell up: every pending batch fails with `why`; the next batch starts a new one. */
  private fail(why: string): void {
    const child = this.child;
    this.child = null;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    if (child !== null && child.exitCode === null) child.kill();
    const error = this.options.describe(why);
    for (const batch of this.pending.splice(0)) batch.resolve({ error, output: batch.lines.join('\n') });
  }
}

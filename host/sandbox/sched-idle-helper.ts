// One long-lived `sh` per SCHED_IDLE worker that runs util-linux's `chrt --idle` for the thread ids
// it is sent, batch by batch, so that lowering a new thread never forks the worker itself (a fork
// of a Node process with isolates costs its main thread 3–10 ms, docs/performance.md). Process
// plumbing only: it never decides which threads are lowered, and never touches a main thread.

import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';

/** How long one batch may take before the helper is given up (and started afresh next time). */
const BATCH_TIMEOUT_MS = 5_000;
const DONE = '--batch-done--';
const MISSING = '--command-missing--';
// $0 is the command. Each line holds thread ids (digits only, written by this module); for each,
// the command's error text (if any) goes to stdout and its own output away; then the end marker.
const SCRIPT = `command -v "$0" >/dev/null 2>&1 || { echo ${MISSING}; exit 127; }
while IFS= read -r line; do for t in $line; do "$0" --idle --pid 0 "$t" 2>&1 >/dev/null; done; echo ${DONE}; done`;

/** What one batch came to: `error` when the command could not be run at all, else its error text (may be empty). */
export interface BatchOutcome {
  error?: string;
  output: string;
}

interface Batch {
  resolve(outcome: BatchOutcome): void;
  lines: string[];
}

export class SchedIdleHelper {
  private child: ChildProcessByStdio<Writable, Readable, null> | null = null;
  private readonly pending: Batch[] = [];
  private buffered = '';
  private timer: NodeJS.Timeout | null = null;
  private readonly command: string;

  constructor(command = 'chrt') {
    this.command = command;
  }

  /** Runs the command for each thread; resolves once all ran (never rejects). */
  lower(threads: readonly number[]): Promise<BatchOutcome> {
    if (threads.length === 0) return Promise.resolve({ output: '' });
    const child = this.child ?? this.start();
    if (child === null) return Promise.resolve({ error: `\`${this.command} --idle\` could not be run: sh could not be started`, output: '' });
    return new Promise((resolve) => {
      this.pending.push({ resolve, lines: [] });
      child.stdin.write(`${threads.map((thread) => String(Math.trunc(thread))).join(' ')}\n`);
      this.armTimer();
    });
  }

  /** Ends the helper (what is pending resolves as failed). */
  close(): void {
    this.fail('the helper was closed');
  }

  private start(): ChildProcessByStdio<Writable, Readable, null> | null {
    let child: ChildProcessByStdio<Writable, Readable, null>;
    try {
      child = spawn('sh', ['-c', SCRIPT, this.command], { stdio: ['pipe', 'pipe', 'ignore'] });
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
    child.stdout.on('data', (chunk: string) => this.take(chunk));
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
    this.timer = setTimeout(() => this.fail(`timed out after ${BATCH_TIMEOUT_MS} ms`), BATCH_TIMEOUT_MS);
    this.timer.unref();
  }

  /** Gives the helper up: every pending batch fails with `why`; the next batch starts a new one. */
  private fail(why: string): void {
    const child = this.child;
    this.child = null;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    if (child !== null && child.exitCode === null) child.kill();
    const error = why === 'missing' ? `\`${this.command}\` (util-linux) is not installed` : `\`${this.command} --idle\` could not be run: ${why}`;
    for (const batch of this.pending.splice(0)) batch.resolve({ error, output: batch.lines.join('\n') });
  }
}

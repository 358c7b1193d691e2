// Compiles a worker's registered bundles ahead of their first request, to produce V8's code cache
// of each (the host's own product, from the exact source it will be consumed with): a cold start
// then deserializes its bundle's top level instead of parsing and compiling it. It works in an
// isolate of its own that only ever compiles: no context is entered and no script is run, so no
// guest code executes before the integration's first request, in its own isolate.

import ivm from 'isolated-vm';
import { deferWork } from './defer-work.ts';

export interface PrecompileJob {
  /** The bundle's exact source: its cache is only ever consumed with this same text. */
  code: string;
  filename: string;
  /** Whether the cache is still wanted (the integration has none yet and was not replaced or moved). */
  wanted(): boolean;
  /** The cache, or undefined when the compile failed (the integration then compiles at its start). */
  done(cache: ivm.ExternalCopy<ArrayBuffer> | undefined): void;
}

export interface PrecompilerOptions {
  /**
   * The startup snapshot the worker's isolates are made from: V8 accepts a code cache only in an
   * isolate whose read-only heap matches the one that produced it, so the compiling isolate is made
   * from the same snapshot (or, without one, like them, without).
   */
  snapshot?: ivm.ExternalCopy<ArrayBuffer>;
  memoryLimitMb: number;
  /**
   * Caches are made only while isolated-vm holds less than this outside isolates in the worker
   * (`ExternalCopy.totalExternalSize`, which counts every cache kept): caches live as long as their
   * integration is registered, so a worker given thousands of large bundles must not hold one each.
   * Default PRECOMPILED_BYTES_LIMIT.
   */
  maxHeldBytes?: number;
  /** Whether a dispatch of the worker waits: compiles then pause until resume(). */
  busy(): boolean;
  /**
   * How long the next compile still waits (0: now), asked before each one: the worker's quiet
   * window on the offenders' workers (worker.ts), where creating the compiling isolate holds the
   * thread that fires deadlines and a moved integration's first request follows its registration.
   * Without it, compiles wait only for busy().
   */
  waitMs?(): number;
  /** Schedules the next compile off the critical path, after `delayMs` (setImmediate at 0, else an unref'd timer). */
  defer?(work: () => void, delayMs: number): void;
}

/** 64 MB: about 600 caches of a 250 KB bundle (GitBook's, with @gitbook/api bundled in). */
export const PRECOMPILED_BYTES_LIMIT = 64 * 1024 * 1024;

export class BundlePrecompiler {
  private readonly queue: PrecompileJob[] = [];
  private readonly options: PrecompilerOptions;
  private isolate: ivm.Isolate | null = null;
  private running = false;
  private scheduled = false;
  private closed = false;

  constructor(options: PrecompilerOptions) {
    this.options = options;
  }

  /** Bundles waiting to be compiled. */
  get pending(): number {
    return this.queue.length;
  }

  /** Queues one bundle; its cache arrives through job.done, later, off any request's path. */
  request(job: PrecompileJob): void {
    if (this.closed) return;
    this.queue.push(job);
    this.resume();
  }

  /** Continues with the queue once the worker's current work is done (after each dispatch). */
  resume(delayMs = 0): void {
    if (this.closed || this.running || this.scheduled || this.queue.length === 0) return;
    this.scheduled = true;
    (this.options.defer ?? deferWork)(() => {
      this.scheduled = false;
      void this.next();
    }, delayMs);
  }

  /** Drops the queue and the compiling isolate (worker shutdown, tests). */
  close(): void {
    this.closed = true;
    this.queue.length = 0;
    this.disposeIsolate();
  }

  private async next(): Promise<void> {
    if (this.closed || this.running) return;
    if (this.options.busy()) return;
    // Not yet quiet: ask again once the window has passed (a dispatch arriving meanwhile pauses
    // the queue until its answer, as busy() says).
    const waitMs = this.options.waitMs?.() ?? 0;
    if (waitMs > 0) return this.resume(waitMs);
    let job = this.queue.shift();
    while (job !== undefined && !job.wanted()) job = this.queue.shift();
    if (job === undefined) {
      // Nothing left: the isolate's heap (every script it compiled) is given back.
      this.disposeIsolate();
      return;
    }
    if (ivm.ExternalCopy.totalExternalSize >= (this.options.maxHeldBytes ?? PRECOMPILED_BYTES_LIMIT)) {
      // Full: this one and the rest compile at their own starts, as without a precompiler.
      for (const skipped of [job, ...this.queue.splice(0)]) if (skipped.wanted()) skipped.done(undefined);
      this.disposeIsolate();
      return;
    }
    this.running = true;
    let cache: ivm.ExternalCopy<ArrayBuffer> | undefined;
    try {
      this.isolate ??= new ivm.Isolate({
        memoryLimit: this.options.memoryLimitMb,
        ...(this.options.snapshot ? { snapshot: this.options.snapshot } : {}),
      });
      const script = await this.isolate.compileScript(job.code, { filename: job.filename, produceCachedData: true });
      cache = (script as ivm.Script & ivm.CachedDataResult).cachedData;
      script.release();
    } catch {
      // A bundle that cannot be compiled here (or made this isolate pass its memory limit) gets no
      // cache; its own start reports whatever is wrong with it. A fresh isolate serves the next one.
      cache = undefined;
      this.disposeIsolate();
    }
    this.running = false;
    if (!this.closed && job.wanted()) job.done(cache);
    if (this.queue.length > 0) this.resume();
    else this.disposeIsolate();
  }

  private disposeIsolate(): void {
    const isolate = this.isolate;
    this.isolate = null;
    if (isolate === null || isolate.isDisposed) return;
    try {
      isolate.dispose();
    } catch {
      // Disposed by isolated-vm itself (memory limit): nothing left to free.
    }
  }
}

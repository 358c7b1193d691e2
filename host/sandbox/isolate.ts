// One integration's V8 isolate inside a sandbox worker: creation (runtime + bundle), dispatch
// with a wall-clock deadline, timers, waitUntil draining and disposal. Guest code only ever sees
// plain functions whose arguments and results are copies; no ivm object is placed in its reach.
// Its parts are in isolate/: the shared types, logs, CPU evidence, the guest's calls, dispatch arguments.

import type ivm from 'isolated-vm';
import type { SandboxResponse } from '../../sandbox-api/runtime/contract.ts';
import type { CapturedLog, SandboxLimits } from './messages.ts';
import { decodeWireAnswer, streamedBodyOf, validateSandboxResponse } from './validate-response.ts';
import { prepareRealm, type RuntimeSource } from './realm.ts';
import { guestStack, scriptFilename } from './stack-map.ts';
import { FetchTable } from './fetch-table.ts';
import type { ResponseBody } from './response-body.ts';
import {
  DispatchError,
  MEMORY_LIMIT_PATTERN,
  type InFlight,
  type IsolateHooks,
  type IsolateOptions,
  type Live,
  type RealmState,
  type WireEnvelope,
} from './isolate/contract.ts';
import { GuestLogs } from './isolate/guest-logs.ts';
import { CpuEvidence } from './isolate/cpu-evidence.ts';
import { GuestCalls } from './isolate/guest-calls.ts';
import { environmentToSend, urlSeeds } from './isolate/dispatch-args.ts';
import { drainAfterResponse, followingBody, type ResponseWork } from './isolate/after-response.ts';

export { DispatchError, type IsolateHooks, type IsolateOptions, type WireEnvelope } from './isolate/contract.ts';
export type { RuntimeSource } from './realm.ts';

/** How often a busy isolate's memory is measured again (isolate-budget.ts uses the last measurement). */
const MEMORY_SAMPLE_MS = 1_000;

const STARTUP_DISCARDED = 'the integration was reset while it was starting';

export class IntegrationIsolate {
  private live: Live | null = null;
  private starting: Promise<Live> | null = null;
  /** Settles (never rejects) once the host's part of the start in progress is over (see realmReady). */
  private realm: Promise<void> | null = null;
  /** Incremented by every dispose(); an isolate created across one is thrown away (see start()). */
  private generation = 0;
  /** The realm state of the isolate being created, if any: a dispose() meanwhile marks it too. */
  private startingRealm: RealmState | null = null;
  /**
   * Set while a start whose realm is built waits for a dispatch before it runs any guest code (every
   * dispatch that asked for it gave up at its deadline first); calling it lets the start go on.
   */
  private resumeParked: (() => void) | null = null;
  private readonly inFlight = new Set<InFlight>();
  private readonly draining = new Set<string>();
  /** Its log lines, into the events in flight or the host log (isolate/guest-logs.ts). */
  private readonly logs: GuestLogs;
  /** What it executed in the current busy period (isolate/cpu-evidence.ts). */
  private readonly cpu: CpuEvidence;
  /** The guest's side of its realm's primitives: fetches, timers, abandoned calls (isolate/guest-calls.ts). */
  private readonly calls: GuestCalls;
  /** What its work after a response needs of it (isolate/after-response.ts). */
  private readonly work: ResponseWork;
  /** Set by retire(): dispose once the work in flight is done. */
  private retiredBecause: string | null = null;
  readonly name: string;
  private readonly bundleCode: string;
  private bundleCache: ivm.ExternalCopy<ArrayBuffer> | undefined;
  /** Isolates that compiled the bundle without a code cache (the second one makes the cache). */
  private bundleCompiles = 0;
  private readonly runtime: RuntimeSource;
  private readonly limits: SandboxLimits;
  private readonly hooks: IsolateHooks;
  private readonly deadlineFromArrival: boolean;

  constructor(
    name: string,
    bundleCode: string,
    runtime: RuntimeSource,
    limits: SandboxLimits,
    hooks: IsolateHooks,
    options: IsolateOptions = {},
  ) {
    this.name = name;
    this.bundleCode = bundleCode;
    this.runtime = runtime;
    this.limits = limits;
    this.hooks = hooks;
    this.deadlineFromArrival = options.deadlineFrom === 'arrival';
    this.logs = new GuestLogs(this.inFlight, this.draining, limits, hooks);
    this.cpu = new CpuEvidence(this.inFlight, this.draining, () => this.live);
    this.calls = new GuestCalls({
      inFlight: this.inFlight,
      draining: this.draining,
      limits,
      hooks,
      logs: this.logs,
      current: () => this.live,
      dispose: (reason) => this.dispose(reason),
    });
    this.work = {
      inFlight: this.inFlight,
      draining: this.draining,
      limits,
      hooks,
      current: () => this.live,
      dispose: (reason) => this.dispose(reason),
      workEnded: () => this.resetWindowIfIdle(),
    };
  }

  /** Whether a code cache of this bundle would still be of use (none held yet). */
  get wantsCodeCache(): boolean {
    return this.bundleCache === undefined;
  }

  /**
   * A code cache the worker made ahead of the first start (bundle-precompiler.ts), taken only if it
   * was made from this isolate's own bundle text: V8 checks a cache against its source's length
   * alone, so a cache of another text would run that text's code.
   */
  offerCodeCache(source: string, cache: ivm.ExternalCopy<ArrayBuffer>): boolean {
    if (source !== this.bundleCode || this.bundleCache !== undefined) return false;
    this.bundleCache = cache;
    return true;
  }

  /** When this integration last started a dispatch (for least-recently-used eviction). */
  lastUsedAt = 0;

  /**
   * The isolate's memory as last measured (V8's physical heap plus external and malloced memory),
   * kept across disposal as the estimate for its next start; 0 before the first measurement.
   */
  memoryBytes = 0;
  private memorySampledAt = -Infinity;

  get isLive(): boolean {
    return this.live !== null && !this.live.isolate.isDisposed;
  }

  /**
   * Milliseconds this integration's isolate has spent executing since it last became busy, if it
   * passed `thresholdMs` and was not reported yet in this busy period; null otherwise (isolate/cpu-evidence.ts).
   */
  takeHogReport(thresholdMs: number): number | null {
    return this.cpu.takeHogReport(thresholdMs);
  }

  /**
   * Milliseconds the isolate executed in the current busy period (isolate/cpu-evidence.ts): the supervisor's evidence
   * that a failure burned CPU.
   */
  executedMs(): number {
    return this.cpu.executedMs();
  }

  /** Whether waitUntil work of this integration still runs after its responses. */
  get isDraining(): boolean {
    return this.draining.size > 0;
  }

  /** Being created (or live): it takes its memory already. */
  get isStarting(): boolean {
    return this.starting !== null && this.live === null;
  }

  /**
   * Live, or its realm built and waiting for a dispatch (parked), with nothing in flight or
   * draining: safe to dispose and recreate later.
   */
  get isIdle(): boolean {
    return (this.isLive || this.isParked) && this.inFlight.size === 0 && this.draining.size === 0;
  }

  /** Its realm is built and claimed, and waits for this integration's next dispatch (see IsolateOptions). */
  get isParked(): boolean {
    return this.resumeParked !== null;
  }

  /**
   * Runs one envelope; resolves with a validated response (and, when its body follows it, that
   * body: `response.body` is then empty) or rejects with a DispatchError.
   */
  async dispatch(
    envelope: WireEnvelope,
  ): Promise<{ response: SandboxResponse; logs: CapturedLog[]; body?: ResponseBody }> {
    this.lastUsedAt = performance.now();
    const entry: InFlight = {
      eventId: envelope.eventId,
      installationId: envelope.installationId,
      logs: [],
      logBytes: 0,
      droppedLogs: 0,
    };
    if (this.inFlight.size === 0 && this.draining.size === 0) this.cpu.startBusyPeriod();
    this.inFlight.add(entry);
    // A start parked with its realm built goes on now that a dispatch wants it.
    this.unpark();
    let deadline: NodeJS.Timeout | undefined;
    let live: Live | undefined;
    try {
      // A live isolate is used as is (the common case: no start to wait for, no await).
      const current = this.live !== null && !this.live.isolate.isDisposed ? this.live : undefined;
      // On a regular worker the deadline is the guest's time: it starts once the host has built the
      // realm (isolate, runtime, frozen built-ins), which a busy machine slows for reasons that are
      // not the guest's. On an offenders' worker it starts now (IsolateOptions). The bundle's top
      // level and the handler, awaits included, count in both.
      if (current === undefined && !this.deadlineFromArrival) await this.realmReady();
      // At the deadline the isolate is disposed and the dispatch answered at once, in the same
      // turn: without waiting for the isolate's pending call to reject, which takes until its
      // thread has unwound (and, for a guest blocked in a call to the host, another turn or two).
      let deadlinePassed: (error: DispatchError) => void = () => undefined;
      const passed = new Promise<never>((_resolve, reject) => (deadlinePassed = reject));
      deadline = setTimeout(() => {
        if (this.live === null && this.startingRealm?.guest !== true) {
          // No guest code ran yet: the host is still building the realm. Answer now; the start goes
          // on and its isolate is kept for this integration's next dispatch (nothing to dispose).
          entry.failure = new DispatchError(
            'timeout',
            `the integration did not answer within ${this.limits.dispatchTimeoutMs} ms: its ` +
              `isolate was still being prepared by the host (none of its code ran)`,
            true,
          );
          deadlinePassed(entry.failure);
          return;
        }
        entry.failure = new DispatchError(
          'timeout',
          `the integration did not answer within ${this.limits.dispatchTimeoutMs} ms`,
        );
        this.executedMs(); // read before the isolate is disposed: the evidence of what it burned
        this.dispose('dispatch deadline passed');
        deadlinePassed(entry.failure);
      }, envelope.deadlineMs ?? this.limits.dispatchTimeoutMs);
      live = current ?? (await Promise.race([this.startWithin(entry), passed]));
      // No isolated-vm `timeout` here: the deadline above already disposes the isolate (which stops
      // whatever it runs), and a per-call timeout costs a watchdog timer for every dispatch.
      const call = live.dispatch.apply(
        undefined,
        [
          envelope.eventJson,
          environmentToSend(live, envelope.environmentJson),
          envelope.fetchBody,
          urlSeeds(live, envelope.requestUrl),
        ],
        {
          arguments: { copy: true },
          result: { promise: true, copy: true },
        },
      );
      this.hooks.entered?.();
      const raw = decodeWireAnswer(await Promise.race([call, passed]));
      if (entry.failure) throw entry.failure;
      const response = validateSandboxResponse(raw, this.limits.maxResponseBytes);
      if (typeof response === 'string') throw new DispatchError('bad-response', response);
      const streamed = streamedBodyOf(raw);
      if (typeof streamed === 'string') throw new DispatchError('bad-response', streamed);
      this.sampleMemory(live);
      // Draining costs a round trip into the isolate; only pay it when waitUntil work exists.
      if ((raw as { waitUntilPending?: unknown }).waitUntilPending === true)
        drainAfterResponse(this.work, live, entry.eventId);
      const logs = this.logs.closeLogs(entry);
      return streamed === null
        ? { response, logs }
        : { response, logs, body: followingBody(this.work, live, entry.eventId, streamed) };
    } catch (error) {
      // Whether the runtime got the environment text of a call that failed is unknown: send the
      // next one its text again (sending it is always correct, only slower).
      if (live !== undefined) live.environmentJson = undefined;
      throw Object.assign(this.classify(error, entry), {
        logs: this.logs.closeLogs(entry),
        executedMs: this.executedMs(),
      });
    } finally {
      clearTimeout(deadline);
      this.inFlight.delete(entry);
      this.resetWindowIfIdle();
    }
  }

  /**
   * Retires this isolate (its integration got a new build, or moved to another worker): disposed
   * at once when idle, else as soon as its in-flight dispatches and waitUntil work are done, which
   * their own deadlines bound. Nothing new is sent to a retired isolate.
   */
  retire(reason: string): void {
    this.retiredBecause = reason;
    if (this.inFlight.size === 0 && this.draining.size === 0) this.dispose(reason);
  }

  /** Measures the isolate's memory now and then, in the background (an async call queued behind its work). */
  private sampleMemory(live: Live): void {
    const now = performance.now();
    if (now - this.memorySampledAt < MEMORY_SAMPLE_MS) return;
    this.memorySampledAt = now;
    live.isolate.getHeapStatistics().then(
      (stats) => {
        if (this.live !== live) return;
        this.memoryBytes = stats.total_physical_size + stats.externally_allocated_size + stats.malloced_memory;
        this.hooks.measured?.();
      },
      () => undefined,
    );
  }

  dispose(reason: string): void {
    const live = this.live;
    this.live = null;
    this.calls.disposed();
    this.starting = null;
    this.realm = null;
    this.generation++;
    // An isolate still being created is thrown away when it is done (start()); its lines until
    // then are over like those of a disposed one.
    if (this.startingRealm !== null) this.startingRealm.disposed = true;
    this.startingRealm = null;
    // A parked start goes on only to find its realm disposed, and throws its isolate away (create()).
    this.unpark();
    this.memorySampledAt = -Infinity;
    if (live === null) return;
    this.hooks.disposed?.(reason);
    for (const timer of live.timers.values()) clearTimeout(timer);
    live.timers.clear();
    live.fetches.close();
    live.resources.close();
    this.draining.clear();
    // Its realm's calls already on their way to this thread may still arrive: their lines go to
    // the host's log, never into an event of a later isolate (see recordLog).
    live.realmState.disposed = true;
    if (!live.isolate.isDisposed) {
      try {
        live.isolate.dispose();
      } catch {
        // Already disposed by isolated-vm itself (memory limit); nothing left to free.
      }
    }
  }

  private classify(error: unknown, entry: InFlight): DispatchError {
    if (entry.failure) return entry.failure;
    if (error instanceof DispatchError) return error;
    const message = error instanceof Error ? error.message : String(error);
    if (MEMORY_LIMIT_PATTERN.test(message)) {
      this.dispose('memory limit');
      return new DispatchError(
        'memory',
        `the integration exceeded its memory limit of ${this.limits.memoryLimitMb} MB`,
      );
    }
    if (/disposed/i.test(message))
      return new DispatchError('isolate-reset', 'the integration was reset while handling this request');
    if (/timed out/i.test(message)) {
      this.dispose('synchronous timeout');
      return new DispatchError('timeout', `the integration did not answer within ${this.limits.dispatchTimeoutMs} ms`);
    }
    // Failing to start (a throwing top level) is the integration's error, reported in its log
    // with the guest's frames (mapped to its sources), never the worker's.
    const stack =
      error instanceof Error && typeof error.stack === 'string' ? guestStack(error.stack) : message.split('\n')[0];
    this.logs.recordLog('error', `integration failed to start: ${stack}`);
    this.dispose('start failure');
    return new DispatchError('isolate-reset', 'the integration failed to start');
  }

  private resetWindowIfIdle(): void {
    if (this.inFlight.size !== 0 || this.draining.size !== 0) return;
    this.calls.resetWindow();
    this.logs.resetWindow();
    this.dropIdleTimers();
    this.live?.fetches.closeBodies();
    this.live?.resources.idle();
    if (this.retiredBecause !== null) this.dispose(this.retiredBecause);
  }

  /**
   * Timers only run while the integration has work in flight (a dispatch or waitUntil): once it
   * is idle, pending ones are dropped at once, so an idle isolate costs nothing and cannot keep
   * itself busy, and a thousand dropped timers make one log line, not a thousand.
   */
  private dropIdleTimers(): void {
    const live = this.live;
    if (live === null || live.timers.size === 0) return;
    const count = live.timers.size;
    for (const timer of live.timers.values()) clearTimeout(timer);
    live.timers.clear();
    this.hooks.lateLog([], 'warn', `${count} timer(s) still pending when the integration finished its work: dropped`);
  }

  /**
   * Starts (or joins the start of) the isolate for one dispatch. If another dispatch's deadline
   * threw away the isolate being started, this one starts a fresh one while its own time lasts.
   */
  private async startWithin(entry: InFlight): Promise<Live> {
    for (let attempt = 0; ; attempt++) {
      try {
        const live = await this.start();
        // The deadline may have passed while the isolate was starting: no time is left to run.
        if (entry.failure) throw entry.failure;
        return live;
      } catch (error) {
        const discarded = error instanceof DispatchError && error.message === STARTUP_DISCARDED;
        if (!discarded || entry.failure || attempt >= 2) throw entry.failure ?? error;
      }
    }
  }

  /**
   * Waits for the host's part of starting the isolate (creating it, the runtime, hardening), kicking
   * off a start if none is under way; immediate when the isolate is live. Never rejects: a failed
   * start is reported by start() itself.
   */
  private realmReady(): Promise<void> {
    if (this.isLive) return Promise.resolve();
    this.start().catch(() => undefined);
    return this.realm ?? Promise.resolve();
  }

  private start(): Promise<Live> {
    if (this.live !== null && !this.live.isolate.isDisposed) return Promise.resolve(this.live);
    // A dispose() while the isolate is being created (a deadline passing during a slow top level)
    // bumps the generation: the isolate that creation then produces is disposed, never installed.
    const generation = this.generation;
    if (this.starting !== null) return this.starting;
    let realmBuilt: () => void = () => undefined;
    this.realm = new Promise<void>((resolve) => (realmBuilt = resolve));
    this.starting = this.create(realmBuilt).then(
      (live) => {
        if (this.generation !== generation) {
          if (!live.isolate.isDisposed) live.isolate.dispose();
          throw new DispatchError('isolate-reset', STARTUP_DISCARDED);
        }
        this.live = live;
        this.cpu.installed(live);
        this.hooks.onIsolateStart?.(live.pooled);
        this.sampleMemory(live);
        return live;
      },
      (error) => {
        if (this.generation === generation) this.starting = null;
        throw error;
      },
    );
    return this.starting;
  }

  /**
   * Builds the isolate: first the host's part (a realm from the worker's warm pool, else one made
   * now; then `realmBuilt` is called), then the guest's bundle. A realm is claimed by this
   * integration before any guest code runs in it and is never handed to another.
   */
  private async create(realmBuilt: () => void): Promise<Live> {
    let isolate: ivm.Isolate | undefined;
    let realmState: RealmState | undefined;
    try {
      const pooledRealm = await this.hooks.takeRealm?.();
      const realm = pooledRealm ?? (await prepareRealm(this.runtime, this.limits.memoryLimitMb));
      isolate = realm.isolate;
      const timers = new Map<number, NodeJS.Timeout>();
      const fetches = new FetchTable();
      realmState = { disposed: false, guest: false };
      this.startingRealm = realmState;
      realm.claim(this.calls.owner(timers, fetches, realmState));
      const live: Live = {
        isolate,
        context: realm.context,
        timers,
        fetches,
        seededUrls: new Set(),
        environmentJson: undefined,
        pooled: pooledRealm !== undefined,
        dispatch: realm.dispatch,
        drain: realm.drain,
        fireTimer: realm.fireTimer,
        pullBody: realm.pullBody,
        cancelBody: realm.cancelBody,
        resources: realm.resources,
        realmState,
      };
      // From here on it is the integration's code (compiling and running its bundle): its deadline runs.
      realmBuilt();
      // Every dispatch that asked for this start gave up at its deadline while the host built the
      // realm (an offenders' worker, IsolateOptions): no guest code runs with no dispatch to answer
      // and no deadline to bound it. The realm stays this integration's, for its next dispatch; a
      // dispose() meanwhile (eviction, a move, a new build) lets this go on to be thrown away.
      if (!this.awaited()) {
        await new Promise<void>((resume) => (this.resumeParked = resume));
        if (realmState.disposed) throw new DispatchError('isolate-reset', STARTUP_DISCARDED);
      }
      realmState.guest = true;
      // V8's code cache of this bundle: usually the worker's, made ahead of the first start in an
      // isolate that only compiles (bundle-precompiler.ts, offerCodeCache). Without one (that
      // compile failed, or the start came first), made by the second isolate (after an eviction or
      // a reset), never by the first: making it costs the isolate that makes it ~0.1 MB resident for
      // as long as it lives (docs/performance.md), and most integrations only ever start once.
      const produceCache = !this.bundleCache && this.bundleCompiles++ > 0;
      const bundle = await isolate.compileScript(this.bundleCode, {
        filename: scriptFilename(this.name),
        ...(this.bundleCache ? { cachedData: this.bundleCache } : produceCache ? { produceCachedData: true } : {}),
      });
      const compiled = bundle as ivm.Script & ivm.CachedDataResult & { cachedDataRejected?: boolean };
      if (compiled.cachedDataRejected === true) this.bundleCache = undefined;
      else if (!this.bundleCache && compiled.cachedData) this.bundleCache = compiled.cachedData;
      const ran = bundle.run(realm.context, { reference: true, timeout: this.limits.dispatchTimeoutMs });
      this.hooks.entered?.();
      const namespace = (await ran) as ivm.Reference;
      await realm.setEntry.apply(undefined, [namespace.derefInto()], { timeout: this.limits.dispatchTimeoutMs });
      namespace.release();
      realm.setEntry.release();
      return live;
    } catch (error) {
      if (isolate !== undefined && !isolate.isDisposed) isolate.dispose();
      throw error;
    } finally {
      if (this.startingRealm === realmState) this.startingRealm = null;
      realmBuilt();
    }
  }

  /** Whether a dispatch in flight still waits for an answer (its deadline has not passed). */
  private awaited(): boolean {
    for (const entry of this.inFlight) if (entry.failure === undefined) return true;
    return false;
  }

  /** Lets a parked start go on (a dispatch wants it, or it is being thrown away). */
  private unpark(): void {
    const resume = this.resumeParked;
    if (resume === null) return;
    this.resumeParked = null;
    resume();
  }
}

// One integration's V8 isolate inside a sandbox worker: creation (runtime + bundle), dispatch
// with a wall-clock deadline, timers, waitUntil draining and disposal. Guest code only ever sees
// plain functions whose arguments and results are copies; no ivm object is placed in its reach.

import ivm from 'isolated-vm';
import type { BridgeRequest, BridgeResponse, BridgeResult, LogLevel, SandboxResponse, StreamedBody, UrlRecord, WireAnswer } from '../../sandbox-api/runtime/contract.ts';
import type { CapturedLog, DispatchFailure, SandboxLimits } from './messages.ts';
import * as primitives from '../bridge/primitives.ts';
import { decodeWireAnswer, streamedBodyOf, validateSandboxResponse } from './validate-response.ts';
import { prepareRealm, type PreparedRealm, type RealmOwner, type RuntimeSource } from './realm.ts';
import { sanitizeLogText } from '../common/log-text.ts';
import { guestStack, scriptFilename } from './stack-map.ts';
import type { FetchOutcome } from '../bridge/fetch.ts';
import { FetchTable } from './fetch-table.ts';
import type { RealmResources } from './realm-primitives.ts';
import { hostBodySource, isolateBodySource, responseBody, type ResponseBody } from './response-body.ts';

export class DispatchError extends Error {
  readonly failure: DispatchFailure;
  /**
   * A timeout whose deadline passed before any of the integration's code ran (its realm was still
   * being built by the host): the host's slowness, not the guest's offence (see IsolateOptions).
   */
  readonly beforeGuest: boolean;
  constructor(failure: DispatchFailure, message: string, beforeGuest = false) {
    super(message);
    this.failure = failure;
    this.beforeGuest = beforeGuest;
  }
}

export interface IsolateOptions {
  /**
   * When the dispatch deadline starts. 'realm' (the default, regular workers): once the host has
   * built the isolate's realm, so a busy machine never turns a well-behaved integration's cold
   * request into a 504. 'arrival' (the offenders' workers, whose guest threads are lowered and held
   * by the offenders' CPU quota, so that a realm built there can take hundreds of ms): when the
   * dispatch arrives, so the answer comes by the deadline even while the realm is still being
   * built. A deadline that passes before any guest code ran is then answered as a timeout marked
   * `beforeGuest`, the isolate being built is not thrown away, and no guest code runs in it until
   * this integration's next dispatch arrives.
   */
  deadlineFrom?: 'realm' | 'arrival';
}

export interface IsolateHooks {
  /** An outbound fetch; `signal` aborts it until its head arrived; a body that goes on comes as `rest`. */
  fetch(request: BridgeRequest, signal: AbortSignal): Promise<FetchOutcome>;
  /** Console output while no dispatch of this integration is in flight (waitUntil work). */
  lateLog(eventIds: string[], level: string, text: string): void;
  /** Its waitUntil work is over and nothing else is in flight: the integration is idle again. */
  onDrained?(): void;
  /** A new isolate of this integration is up (first dispatch, or after a reset or eviction); `pooled` when its realm came from the warm pool. */
  onIsolateStart?(pooled: boolean): void;
  /** Rewrites bundle positions in a guest's log text into source positions (stack-map.ts). */
  mapText?(text: string): string;
  /** A live isolate was disposed (evicted, reset, moved); the worker tells the supervisor. */
  disposed?(reason: string): void;
  /** A new measurement of the isolate's memory (memoryBytes) landed. */
  measured?(): void;
  /**
   * Guest code was just handed to the isolate (its top level, a dispatch, waitUntil work, a timer):
   * isolated-vm may have started a thread for it on this one (a lowered worker lowers it: guest-threads.ts).
   */
  entered?(): void;
  /**
   * A realm prepared ahead of time (the worker's warm pool, isolate-pool.ts), taken for good by
   * this start, or the one the pool is making (a promise; undefined if making it failed); undefined
   * when there is none, and the start prepares its own.
   */
  takeRealm?(): PreparedRealm | Promise<PreparedRealm | undefined> | undefined;
}

/** How often a busy isolate's memory is measured again (isolate-budget.ts uses the last measurement). */
const MEMORY_SAMPLE_MS = 1_000;

export type { RuntimeSource } from './realm.ts';

interface InFlight {
  eventId: string;
  installationId: string;
  logs: CapturedLog[];
  /** Characters of `logs` so far (sanitized text), against maxLogBytesPerDispatch. */
  logBytes: number;
  droppedLogs: number;
  failure?: DispatchError;
}

/**
 * One dispatch as the worker holds it: the event and environment as the JSON text the supervisor
 * sent (they cross into the isolate as flat strings), the body bytes, and the request URL to parse.
 */
export interface WireEnvelope {
  eventId: string;
  installationId: string;
  eventJson: string;
  environmentJson: string;
  fetchBody: Uint8Array | null;
  /** A fetch event's request URL: parsed here once per isolate, so the runtime needs no hop for it. */
  requestUrl?: string;
  /** This dispatch's deadline when the host gave one (what it left of its own; DispatchRequest), else limits.dispatchTimeoutMs. */
  deadlineMs?: number;
}

/** Request URLs whose parsed record this isolate already holds (its URL cache keeps 512; a seed it lost costs only a hop). */
const MAX_SEEDED_URLS = 256;

interface Live {
  isolate: ivm.Isolate;
  context: ivm.Context;
  dispatch: ivm.Reference<(eventJson: string, environmentJson: string | null, fetchBody: Uint8Array | null, parsedUrlsJson: string | null) => Promise<WireAnswer>>;
  drain: ivm.Reference<(eventId: string) => Promise<void>>;
  fireTimer: ivm.Reference<(id: number) => void>;
  pullBody: ivm.Reference<(id: number) => Promise<Uint8Array | null>>;
  cancelBody: ivm.Reference<(id: number, reason: string) => Promise<void>>;
  timers: Map<number, NodeJS.Timeout>;
  /** Its outbound fetches in flight and their bodies still at the host. */
  fetches: FetchTable;
  /** What its realm holds on the host (compression streams). */
  resources: RealmResources;
  seededUrls: Set<string>;
  /**
   * The environment text this isolate's runtime holds parsed (the last one sent): an envelope with
   * the same text sends null instead, sparing the copy in and the parse.
   */
  environmentJson: string | undefined;
  /** Its realm was made ahead of time by the worker's warm pool. */
  pooled: boolean;
  /** Shared with the realm's primitives (owner()): set once this isolate is disposed. */
  realmState: RealmState;
}

interface RealmState {
  disposed: boolean;
  /** The start is past the host's part: the guest's bundle compiles or runs (its deadline's business). */
  guest: boolean;
}

const MEMORY_LIMIT_PATTERN = /memory limit/i;
/** Work after a response is keyed by its event id, and a following body by the id and this suffix. */
const BODY_KEY_SUFFIX = ' body';
const eventOfWork = (key: string): string => (key.endsWith(BODY_KEY_SUFFIX) ? key.slice(0, -BODY_KEY_SUFFIX.length) : key);
const STARTUP_DISCARDED = 'the integration was reset while it was starting';
/** Fetches answered after their event ended, left pending in one isolate before it is reset. */
const MAX_ABANDONED_CALLS = 1_000;
/** Each pending timer is a host object: a guest must not be able to make millions of them. */
const MAX_PENDING_TIMERS = 10_000;


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
  private fetchesInWindow = 0;
  /** One warning per busy window for each cap a guest runs into, never one per attempt. */
  private readonly warned = new Set<'fetch' | 'timers'>();
  /** Lines logged while only waitUntil work runs, and those dropped past the per-event cap. */
  private lateLines = 0;
  private lateBytes = 0;
  private lateDropped = 0;
  /** Where CPU counting of the current busy period started, and whether it was reported as a hog. */
  private busySince: { isolate: ivm.Isolate; ns: bigint } | null = null;
  private hogReported = false;
  /** The latest reading of what the isolate executed in this busy period (ms): kept for when it is gone. */
  private executedReadingMs = 0;
  /** Where that reading counts from: the busy period's start, or where an isolate born within it was installed. */
  private evidenceBase: { isolate: ivm.Isolate; ns: bigint } | null = null;
  /** Fetch answers dropped because they came back after the integration's work ended (see abandon). */
  private abandonedCalls = 0;
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

  constructor(name: string, bundleCode: string, runtime: RuntimeSource, limits: SandboxLimits, hooks: IsolateHooks, options: IsolateOptions = {}) {
    this.name = name;
    this.bundleCode = bundleCode;
    this.runtime = runtime;
    this.limits = limits;
    this.hooks = hooks;
    this.deadlineFromArrival = options.deadlineFrom === 'arrival';
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
   * passed `thresholdMs` and was not reported yet in this busy period; null otherwise. Read from
   * the worker's thread while the isolate runs (isolated-vm's cpuTime: time spent executing in
   * the isolate, not waiting on host calls).
   */
  takeHogReport(thresholdMs: number): number | null {
    const live = this.live;
    if (live === null || live.isolate.isDisposed || this.hogReported || (this.inFlight.size === 0 && this.draining.size === 0)) return null;
    let executedNs: bigint;
    try {
      executedNs = live.isolate.cpuTime;
    } catch {
      return null;
    }
    this.noteExecuted(live.isolate, executedNs);
    // The first sample of a busy period whose isolate was still starting sets its baseline.
    if (this.busySince === null || this.busySince.isolate !== live.isolate) {
      this.busySince = { isolate: live.isolate, ns: executedNs };
      return null;
    }
    const ms = Number(executedNs - this.busySince.ns) / 1e6;
    if (ms < thresholdMs) return null;
    this.hogReported = true;
    return Math.round(ms);
  }

  /**
   * Milliseconds the isolate executed in the current busy period, read now while it is live; once
   * it is gone (the deadline or the memory limit disposed it) the last reading (the hog sampler's,
   * at most 100 ms old, or the deadline's own). An isolate born in this busy period counts from
   * when it was installed, its bundle's top level run: building the realm is the host's work, and
   * on a starved worker it would look like the guest's. The supervisor's evidence that a failure
   * burned CPU rather than waited.
   */
  executedMs(): number {
    const live = this.live;
    if (live === null || live.isolate.isDisposed) return Math.round(this.executedReadingMs);
    try {
      this.noteExecuted(live.isolate, live.isolate.cpuTime);
    } catch {
      // Disposed meanwhile: the last reading stands.
    }
    return Math.round(this.executedReadingMs);
  }

  private noteExecuted(isolate: ivm.Isolate, ns: bigint): void {
    // An isolate seen for the first time counts from here: no evidence without a baseline.
    if (this.evidenceBase === null || this.evidenceBase.isolate !== isolate) this.evidenceBase = { isolate, ns };
    this.executedReadingMs = Number(ns - this.evidenceBase.ns) / 1e6;
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
  async dispatch(envelope: WireEnvelope): Promise<{ response: SandboxResponse; logs: CapturedLog[]; body?: ResponseBody }> {
    this.lastUsedAt = performance.now();
    const entry: InFlight = { eventId: envelope.eventId, installationId: envelope.installationId, logs: [], logBytes: 0, droppedLogs: 0 };
    if (this.inFlight.size === 0 && this.draining.size === 0) this.startBusyPeriod();
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
          entry.failure = new DispatchError('timeout', `the integration did not answer within ${this.limits.dispatchTimeoutMs} ms: its isolate was still being prepared by the host (none of its code ran)`, true);
          deadlinePassed(entry.failure);
          return;
        }
        entry.failure = new DispatchError('timeout', `the integration did not answer within ${this.limits.dispatchTimeoutMs} ms`);
        this.executedMs(); // read before the isolate is disposed: the evidence of what it burned
        this.dispose('dispatch deadline passed');
        deadlinePassed(entry.failure);
      }, envelope.deadlineMs ?? this.limits.dispatchTimeoutMs);
      live = current ?? (await Promise.race([this.startWithin(entry), passed]));
      // No isolated-vm `timeout` here: the deadline above already disposes the isolate (which stops
      // whatever it runs), and a per-call timeout costs a watchdog timer for every dispatch.
      const call = live.dispatch.apply(undefined, [envelope.eventJson, this.environmentToSend(live, envelope.environmentJson), envelope.fetchBody, this.urlSeeds(live, envelope.requestUrl)], {
        arguments: { copy: true },
        result: { promise: true, copy: true },
      });
      this.hooks.entered?.();
      const raw = decodeWireAnswer(await Promise.race([call, passed]));
      if (entry.failure) throw entry.failure;
      const response = validateSandboxResponse(raw, this.limits.maxResponseBytes);
      if (typeof response === 'string') throw new DispatchError('bad-response', response);
      const streamed = streamedBodyOf(raw);
      if (typeof streamed === 'string') throw new DispatchError('bad-response', streamed);
      this.sampleMemory(live);
      // Draining costs a round trip into the isolate; only pay it when waitUntil work exists.
      if ((raw as { waitUntilPending?: unknown }).waitUntilPending === true) this.drainAfterResponse(live, entry.eventId);
      const logs = this.closeLogs(entry);
      return streamed === null ? { response, logs } : { response, logs, body: this.followingBody(live, entry.eventId, streamed) };
    } catch (error) {
      // Whether the runtime got the environment text of a call that failed is unknown: send the
      // next one its text again (sending it is always correct, only slower).
      if (live !== undefined) live.environmentJson = undefined;
      throw Object.assign(this.classify(error, entry), { logs: this.closeLogs(entry), executedMs: this.executedMs() });
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

  /**
   * The environment text to send with a dispatch, or null when the runtime already holds it (the
   * worker keeps one string per environment, so an unchanged one is usually the same string).
   */
  private environmentToSend(live: Live, environmentJson: string): string | null {
    if (live.environmentJson === environmentJson) return null;
    live.environmentJson = environmentJson;
    return environmentJson;
  }

  /** Envelope.parsedUrls as JSON for a request URL this isolate has not been handed yet, else null. */
  private urlSeeds(live: Live, url: string | undefined): string | null {
    if (url === undefined || live.seededUrls.has(url)) return null;
    const record: UrlRecord | null = primitives.parseUrl(url, undefined);
    if (record === null) return null;
    if (live.seededUrls.size >= MAX_SEEDED_URLS) live.seededUrls.clear();
    live.seededUrls.add(url);
    return JSON.stringify([[url, record]]);
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
    this.abandonedCalls = 0;
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
      return new DispatchError('memory', `the integration exceeded its memory limit of ${this.limits.memoryLimitMb} MB`);
    }
    if (/disposed/i.test(message)) return new DispatchError('isolate-reset', 'the integration was reset while handling this request');
    if (/timed out/i.test(message)) {
      this.dispose('synchronous timeout');
      return new DispatchError('timeout', `the integration did not answer within ${this.limits.dispatchTimeoutMs} ms`);
    }
    // Failing to start (a throwing top level) is the integration's error, reported in its log
    // with the guest's frames (mapped to its sources), never the worker's.
    const stack = error instanceof Error && typeof error.stack === 'string' ? guestStack(error.stack) : message.split('\n')[0];
    this.recordLog('error', `integration failed to start: ${stack}`);
    this.dispose('start failure');
    return new DispatchError('isolate-reset', 'the integration failed to start');
  }

  private warnOnce(cap: 'fetch' | 'timers', text: string): void {
    if (this.warned.has(cap)) return;
    this.warned.add(cap);
    this.recordLog('warn', text);
  }

  private closeLogs(entry: InFlight): CapturedLog[] {
    if (entry.droppedLogs > 0) entry.logs.push({ level: 'warn', text: `… ${entry.droppedLogs} more log lines dropped (limits: ${this.limits.maxLogLinesPerDispatch} lines, ${this.limits.maxLogBytesPerDispatch} bytes per event)` });
    entry.droppedLogs = 0;
    return entry.logs;
  }

  /** Whether one more line fits the per-event budget of lines and bytes. */
  private fits(lines: number, bytes: number, line: string): boolean {
    return lines < this.limits.maxLogLinesPerDispatch && bytes + line.length <= this.limits.maxLogBytesPerDispatch;
  }

  /** `disposed`: a line of an isolate disposed meanwhile, whose events are over (host log only). */
  private recordLog(level: string, raw: string, disposed = false): void {
    // Mapped first (so a stack trace is cut in the author's terms), then escaped before anything
    // else: control characters must not reach a terminal or a stored log.
    const safe = sanitizeLogText(this.hooks.mapText ? this.hooks.mapText(raw) : raw);
    const line = safe.length > this.limits.maxLogLineBytes ? `${safe.slice(0, this.limits.maxLogLineBytes)}… [truncated]` : safe;
    if (disposed || this.inFlight.size === 0 || !this.inFlightOfOneInstallation()) {
      // No dispatch in flight (waitUntil work), a disposed isolate's line (its events are over),
      // or several dispatches at once of different installations,
      // which the isolate cannot tell apart: the line goes to the host log only, never into one
      // installation's event-log entry, where it could show another's data. (Concurrent
      // dispatches of one installation share their lines.) Capped here like an event's output.
      if (!this.fits(this.lateLines, this.lateBytes, line)) {
        this.lateDropped++;
        return;
      }
      this.lateLines++;
      this.lateBytes += line.length;
      const ids = disposed ? [] : this.inFlight.size === 0 ? [...new Set([...this.draining].map(eventOfWork))] : [...this.inFlight].map((entry) => entry.eventId);
      this.hooks.lateLog(ids, level, line);
      return;
    }
    for (const entry of this.inFlight) {
      if (this.fits(entry.logs.length, entry.logBytes, line)) {
        entry.logs.push({ level, text: line });
        entry.logBytes += line.length;
      } else entry.droppedLogs++;
    }
  }

  private inFlightOfOneInstallation(): boolean {
    let installation: string | undefined;
    for (const entry of this.inFlight) {
      if (installation !== undefined && entry.installationId !== installation) return false;
      installation = entry.installationId;
    }
    return true;
  }

  /** A new busy period: CPU is counted from here for takeHogReport. */
  private startBusyPeriod(): void {
    this.hogReported = false;
    this.executedReadingMs = 0;
    const live = this.live;
    try {
      this.busySince = live !== null && !live.isolate.isDisposed ? { isolate: live.isolate, ns: live.isolate.cpuTime } : null;
    } catch {
      this.busySince = null;
    }
    this.evidenceBase = this.busySince;
  }

  private resetWindowIfIdle(): void {
    if (this.inFlight.size !== 0 || this.draining.size !== 0) return;
    this.fetchesInWindow = 0;
    this.warned.clear();
    if (this.lateDropped > 0) {
      this.hooks.lateLog([], 'warn', `… ${this.lateDropped} more log lines dropped after the response (limits: ${this.limits.maxLogLinesPerDispatch} lines, ${this.limits.maxLogBytesPerDispatch} bytes per event)`);
    }
    this.lateLines = 0;
    this.lateBytes = 0;
    this.lateDropped = 0;
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
   * The body that follows an answer: pulled from the isolate's stream, or from a fetch's body at the
   * host that the integration handed on unread. The integration counts as busy (like waitUntil
   * work: timers run, fetches are allowed) until the body ended; past limits.streamTimeoutMs it is
   * stopped and the isolate reset.
   */
  private followingBody(live: Live, eventId: string, streamed: StreamedBody): ResponseBody {
    const key = `${eventId}${BODY_KEY_SUFFIX}`;
    this.draining.add(key);
    const source =
      streamed.kind === 'fetch'
        ? hostBodySource(live.fetches.take(streamed.id))
        : isolateBodySource(live.isolate, live.pullBody, live.cancelBody, streamed.id, () => this.hooks.entered?.());
    return responseBody({
      ...source,
      maxBytes: this.limits.maxResponseBytes,
      deadlineMs: this.limits.streamTimeoutMs,
      onDeadline: () => {
        this.hooks.lateLog([eventId], 'error', `the response body was still being produced after ${this.limits.streamTimeoutMs} ms: the isolate was reset`);
        if (this.live === live) this.dispose('response body deadline passed');
      },
      done: () => {
        if (!this.draining.delete(key)) return;
        this.resetWindowIfIdle();
        if (this.draining.size === 0 && this.inFlight.size === 0) this.hooks.onDrained?.();
      },
    });
  }

  private drainAfterResponse(live: Live, eventId: string): void {
    this.draining.add(eventId);
    const timer = setTimeout(() => {
      if (!this.draining.has(eventId) || this.live !== live) return;
      this.hooks.lateLog([eventId], 'error', `waitUntil work still running after ${this.limits.waitUntilTimeoutMs} ms: the isolate was reset`);
      this.dispose('waitUntil deadline passed');
    }, this.limits.waitUntilTimeoutMs);
    const drained = live.drain.apply(undefined, [eventId], { arguments: { copy: true }, result: { promise: true } });
    this.hooks.entered?.();
    drained
      .catch(() => undefined)
      .finally(() => {
        clearTimeout(timer);
        this.draining.delete(eventId);
        this.resetWindowIfIdle();
        if (this.draining.size === 0 && this.inFlight.size === 0) this.hooks.onDrained?.();
      });
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
        try {
          this.evidenceBase = { isolate: live.isolate, ns: live.isolate.cpuTime };
        } catch {
          this.evidenceBase = null;
        }
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
      realm.claim(this.owner(timers, fetches, realmState));
      const live: Live = { isolate, context: realm.context, timers, fetches, seededUrls: new Set(), environmentJson: undefined, pooled: pooledRealm !== undefined, dispatch: realm.dispatch, drain: realm.drain, fireTimer: realm.fireTimer, pullBody: realm.pullBody, cancelBody: realm.cancelBody, resources: realm.resources, realmState };
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

  /** This integration's side of a realm's per-integration primitives (the rest are pure: realm.ts). */
  private owner(timers: Map<number, NodeJS.Timeout>, fetches: FetchTable, state: RealmState): RealmOwner {
    const log = (level: LogLevel, text: string) => this.recordLog(String(level), String(text), state.disposed);
    const fetch = async (request: BridgeRequest): Promise<BridgeResult<BridgeResponse>> => {
      // Per event at work: a dispatch, its waitUntil work and its streamed body are one event.
      const events = new Set([...this.inFlight].map((entry) => entry.eventId));
      for (const key of this.draining) events.add(eventOfWork(key));
      const allowance = this.limits.maxFetchesPerDispatch * Math.max(1, events.size);
      if (++this.fetchesInWindow > allowance) {
        this.warnOnce('fetch', `fetch refused: the limit of ${this.limits.maxFetchesPerDispatch} fetches per event was reached`);
        return { ok: false, code: 'TypeError', message: `fetch limit reached (${this.limits.maxFetchesPerDispatch} per event)` };
      }
      const signal = fetches.begin(request.id);
      if (signal === null) return { ok: false, code: 'TypeError', message: 'too many fetches open at once' };
      let outcome: FetchOutcome;
      try {
        outcome = await this.hooks.fetch(request, signal);
      } catch {
        outcome = { ok: false, code: 'TypeError', message: 'network error' };
      }
      const { rest, ...result } = outcome;
      // Settling it now would run the guest's continuation while nothing is in flight, outside any
      // deadline: a fetch nobody awaited (nor handed to waitUntil) is abandoned, as on other
      // isolate platforms once the response is sent, and its body with it.
      if (this.inFlight.size === 0 && this.draining.size === 0) {
        rest?.cancel();
        fetches.answered(request.id, undefined);
        return this.abandon();
      }
      fetches.answered(request.id, state.disposed ? undefined : rest);
      if (state.disposed) rest?.cancel();
      return result;
    };
    const fetchRead = async (id: number): Promise<BridgeResult<Uint8Array | null>> => {
      const read = await fetches.read(id);
      if (this.inFlight.size === 0 && this.draining.size === 0) return this.abandon();
      return read;
    };
    const fetchCancel = (id: number) => fetches.cancel(id);
    const setTimer = (id: number, delayMs: number) => {
      // Only a timer callback already on its way in can run while idle; it may not re-arm itself.
      if (this.inFlight.size === 0 && this.draining.size === 0) return;
      if (timers.size >= MAX_PENDING_TIMERS && !timers.has(Number(id))) {
        this.warnOnce('timers', `setTimeout ignored: ${MAX_PENDING_TIMERS} timers are already pending`);
        return;
      }
      const delay = Math.max(0, Math.min(Number(delayMs) || 0, 2_147_483_647));
      const timer = setTimeout(() => this.fireTimer(timers, id), delay);
      timers.set(Number(id), timer);
    };
    const clearTimer = (id: number) => {
      clearTimeout(timers.get(Number(id)));
      timers.delete(Number(id));
    };
    // As for a fetch: a crypto.subtle answer that comes while idle is abandoned, never settled.
    const lateAnswer = (): boolean => {
      if (this.inFlight.size > 0 || this.draining.size > 0) return false;
      void this.abandon('crypto.subtle call');
      return true;
    };
    return { log, fetch, fetchRead, fetchCancel, setTimer, clearTimer, lateAnswer };
  }

  /**
   * A bridge call whose answer arrived after the integration finished its work: it never settles.
   * Each leaves a small pending promise in the isolate, so past MAX_ABANDONED_CALLS the isolate is
   * reset (with a log line) rather than left to accumulate them.
   */
  private abandon(what: 'fetch' | 'crypto.subtle call' = 'fetch'): Promise<never> {
    this.abandonedCalls++;
    if (this.abandonedCalls === 1) this.hooks.lateLog([], 'warn', `a ${what} answered after the integration finished its work (neither awaited nor passed to waitUntil): its result was dropped`);
    if (this.abandonedCalls > MAX_ABANDONED_CALLS) {
      this.hooks.lateLog([], 'warn', `more than ${MAX_ABANDONED_CALLS} fetches and crypto.subtle calls were abandoned after their events ended: the isolate was reset`);
      this.dispose('too many abandoned fetches');
    }
    return new Promise<never>(() => undefined);
  }

  /** Fires a guest timer; one due while the integration is idle (a race with dropIdleTimers) is dropped. */
  private fireTimer(timers: Map<number, NodeJS.Timeout>, id: number): void {
    timers.delete(id);
    const live = this.live;
    if (live === null || live.timers !== timers) return;
    if (this.inFlight.size === 0 && this.draining.size === 0) {
      this.hooks.lateLog([], 'warn', `timer ${id} fired after the integration finished its work; dropped`);
      return;
    }
    const fired = live.fireTimer.apply(undefined, [id], { arguments: { copy: true }, timeout: this.limits.dispatchTimeoutMs });
    this.hooks.entered?.();
    fired.catch((error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      if (MEMORY_LIMIT_PATTERN.test(message) || /timed out/i.test(message)) this.dispose(`timer callback: ${message}`);
    });
  }
}

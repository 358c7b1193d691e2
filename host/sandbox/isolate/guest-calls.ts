// The integration's side of its realm's primitives (realm.ts RealmOwner): its log, its fetches
// within the per-event allowance, its timers, and the calls answered after its work ended, which
// never settle. It never creates an isolate; past the caps it resets one through `dispose`.

import type { BridgeRequest, BridgeResponse, BridgeResult, LogLevel } from '../../../sandbox-api/runtime/contract.ts';
import type { FetchOutcome } from '../../bridge/fetch.ts';
import type { FetchTable } from '../fetch-table.ts';
import type { SandboxLimits } from '../messages.ts';
import type { RealmOwner } from '../realm.ts';
import {
  eventOfWork,
  MEMORY_LIMIT_PATTERN,
  type InFlight,
  type IsolateHooks,
  type Live,
  type RealmState,
} from './contract.ts';
import type { GuestLogs } from './guest-logs.ts';

/** Fetches answered after their event ended, left pending in one isolate before it is reset. */
const MAX_ABANDONED_CALLS = 1_000;
/** Each pending timer is a host object: a guest must not be able to make millions of them. */
const MAX_PENDING_TIMERS = 10_000;

/** What the guest's calls need of their isolate. */
export interface CallingIsolate {
  /** The isolate's own sets of dispatches in flight and work draining (read only here). */
  inFlight: ReadonlySet<InFlight>;
  draining: ReadonlySet<string>;
  limits: SandboxLimits;
  hooks: IsolateHooks;
  logs: GuestLogs;
  /** The isolate's live state now (null while none is live). */
  current(): Live | null;
  dispose(reason: string): void;
}

export class GuestCalls {
  private fetchesInWindow = 0;
  /** Fetch answers dropped because they came back after the integration's work ended (see abandon). */
  private abandonedCalls = 0;
  private readonly inFlight: ReadonlySet<InFlight>;
  private readonly draining: ReadonlySet<string>;
  private readonly limits: SandboxLimits;
  private readonly hooks: IsolateHooks;
  private readonly isolate: CallingIsolate;

  constructor(isolate: CallingIsolate) {
    this.isolate = isolate;
    this.inFlight = isolate.inFlight;
    this.draining = isolate.draining;
    this.limits = isolate.limits;
    this.hooks = isolate.hooks;
  }

  /** The busy window is over: the fetch allowance starts again. */
  resetWindow(): void {
    this.fetchesInWindow = 0;
  }

  /** The isolate was disposed: its count of abandoned calls goes with it. */
  disposed(): void {
    this.abandonedCalls = 0;
  }

  /** This integration's side of a realm's per-integration primitives (the rest are pure: realm.ts). */
  owner(timers: Map<number, NodeJS.Timeout>, fetches: FetchTable, state: RealmState): RealmOwner {
    const log = (level: LogLevel, text: string) =>
      this.isolate.logs.recordLog(String(level), String(text), state.disposed);
    const fetch = async (request: BridgeRequest): Promise<BridgeResult<BridgeResponse>> => {
      // Per event at work: a dispatch, its waitUntil work and its streamed body are one event.
      const events = new Set([...this.inFlight].map((entry) => entry.eventId));
      for (const key of this.draining) events.add(eventOfWork(key));
      const allowance = this.limits.maxFetchesPerDispatch * Math.max(1, events.size);
      if (++this.fetchesInWindow > allowance) {
        this.isolate.logs.warnOnce(
          'fetch',
          `fetch refused: the limit of ${this.limits.maxFetchesPerDispatch} fetches per event was reached`,
        );
        return {
          ok: false,
          code: 'TypeError',
          message: `fetch limit reached (${this.limits.maxFetchesPerDispatch} per event)`,
        };
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
        this.isolate.logs.warnOnce('timers', `setTimeout ignored: ${MAX_PENDING_TIMERS} timers are already pending`);
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
    if (this.abandonedCalls === 1)
      this.hooks.lateLog(
        [],
        'warn',
        `a ${what} answered after the integration finished its work (neither ` +
          `awaited nor passed to waitUntil): its result was dropped`,
      );
    if (this.abandonedCalls > MAX_ABANDONED_CALLS) {
      this.hooks.lateLog(
        [],
        'warn',
        `more than ${MAX_ABANDONED_CALLS} fetches and crypto.subtle calls were ` +
          `abandoned after their events ended: the isolate was reset`,
      );
      this.isolate.dispose('too many abandoned fetches');
    }
    return new Promise<never>(() => undefined);
  }

  /** Fires a guest timer; one due while the integration is idle (a race with dropIdleTimers) is dropped. */
  private fireTimer(timers: Map<number, NodeJS.Timeout>, id: number): void {
    timers.delete(id);
    const live = this.isolate.current();
    if (live === null || live.timers !== timers) return;
    if (this.inFlight.size === 0 && this.draining.size === 0) {
      this.hooks.lateLog([], 'warn', `timer ${id} fired after the integration finished its work; dropped`);
      return;
    }
    const fired = live.fireTimer.apply(undefined, [id], {
      arguments: { copy: true },
      timeout: this.limits.dispatchTimeoutMs,
    });
    this.hooks.entered?.();
    fired.catch((error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      if (MEMORY_LIMIT_PATTERN.test(message) || /timed out/i.test(message))
        this.isolate.dispose(`timer callback: ${message}`);
    });
  }
}

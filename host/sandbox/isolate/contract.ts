// The types one integration's isolate shares with its parts (isolate/*.ts) and its worker: the
// dispatch failure, the hooks and options the worker gives, a dispatch on the wire, what a live
// isolate holds. Types and constants only: it never creates or touches an isolate.

import type ivm from 'isolated-vm';
import type { BridgeRequest, WireAnswer } from '../../../sandbox-api/runtime/contract.ts';
import type { CapturedLog, DispatchFailure } from '../messages.ts';
import type { FetchOutcome } from '../../bridge/fetch.ts';
import type { FetchTable } from '../fetch-table.ts';
import type { RealmResources } from '../realm-primitives.ts';
import type { PreparedRealm } from '../realm.ts';

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
  /**
   * A new isolate of this integration is up (first dispatch, or after a reset or eviction); `pooled` when its realm
   * came from the warm pool.
   */
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

export interface InFlight {
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
  /**
   * This dispatch's deadline when the host gave one (what it left of its own; DispatchRequest), else
   * limits.dispatchTimeoutMs.
   */
  deadlineMs?: number;
}

export interface Live {
  isolate: ivm.Isolate;
  context: ivm.Context;
  dispatch: ivm.Reference<
    (
      eventJson: string,
      environmentJson: string | null,
      fetchBody: Uint8Array | null,
      parsedUrlsJson: string | null,
    ) => Promise<WireAnswer>
  >;
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

export interface RealmState {
  disposed: boolean;
  /** The start is past the host's part: the guest's bundle compiles or runs (its deadline's business). */
  guest: boolean;
}

export const MEMORY_LIMIT_PATTERN = /memory limit/i;
/** Work after a response is keyed by its event id, and a following body by the id and this suffix. */
export const BODY_KEY_SUFFIX = ' body';
export const eventOfWork = (key: string): string =>
  key.endsWith(BODY_KEY_SUFFIX) ? key.slice(0, -BODY_KEY_SUFFIX.length) : key;

// The platform events the host owes an installation's integration (installation_setup and its space
// and site forms): the record, the store interface that queues them durably, and the retry rules.
// Types, constants and the retry rule; the runner delivers them (runner.ts), store/ persists them.

import { retryDelayMs } from '../common/lease-loop.ts';

export type OwedEventStatus = 'pending' | 'running' | 'delivered' | 'failed';

/** An event to owe, written in the transaction of the change that causes it. */
export interface NewOwedEvent {
  /** The event id every attempt is dispatched (and logged) with: receivers deduplicate on it. */
  id: string;
  installationId: string;
  integration: string;
  /** The event as the integration receives it, without `eventId` and `installationId` (the dispatcher adds them). */
  event: Record<string, unknown> & { type: string };
  /** The HTTP request whose change owes it: every attempt's event-log entry carries it. */
  requestId?: string;
  createdAt: number;
}

export interface OwedEventRecord extends NewOwedEvent {
  status: OwedEventStatus;
  /** Attempts started so far. */
  attempts: number;
  /** When the next attempt may start (ms since the epoch). */
  runAt: number;
  /** While running: when the host that claimed it is presumed dead and another may take it. */
  leaseUntil?: number;
  /** The status the last attempt answered (or the host's, for a failed dispatch). */
  lastStatus?: number;
  /** Why the last attempt failed. */
  lastError?: string;
  updatedAt: number;
}

/**
 * Durable owed events; each method is atomic by itself. Events are written by the installation
 * store, in the transaction of the change (InstallationStore's `owe` arguments).
 */
export interface OwedEventStore {
  /**
   * Claims up to `limit` events to deliver now, each the oldest unfinished event of its installation
   * (so one installation's events leave one at a time, in order): pending ones due at `now`, and
   * running ones whose lease lapsed (their host died). Each is running, its attempts counted, leased
   * until `now + leaseMs`.
   */
  claimDue(now: number, leaseMs: number, limit: number): Promise<OwedEventRecord[]>;
  /**
   * At a host's start: makes the events a dead claimant left running pending and due at `now`;
   * returns how many. A single-process store (SQLite) takes back every running event (the process
   * that claimed it is gone); a shared one only those whose lease ended.
   */
  resumeAbandoned(now: number): Promise<number>;
  /** When the earliest pending event is due, or the earliest lease lapses; undefined when nothing waits. */
  nextDueAt(): Promise<number | undefined>;
  /**
   * Ends attempt number `attempt.number`: `pending` again at `runAt` (a retry), `delivered` or
   * `failed`. Only while that attempt still holds the event (a host whose lease lapsed writes
   * nothing over the host that took it over). Keeps the newest finished events per installation only.
   */
  settle(
    id: string,
    outcome: { status: 'pending'; runAt: number } | { status: 'delivered' | 'failed' },
    attempt: { number: number; lastStatus: number; lastError?: string; now: number },
  ): Promise<void>;
  /** Events waiting (pending) and being delivered (running), of every installation: the metrics. */
  depth(): Promise<{ pending: number; running: number }>;
  /** One installation's events, newest first. */
  list(installationId: string, limit: number): Promise<OwedEventRecord[]>;
}

/** The retry rules of the queue (docs/operations.md#owed-platform-events). */
export interface OwedEventLimits {
  /** Attempts of one event before it is failed for good. */
  maxAttempts: number;
  /** The delay before the first retry; each later one is six times the previous, up to `maxRetryDelayMs`. */
  retryBaseMs: number;
  maxRetryDelayMs: number;
}

// As tasks' (10 s, 60 s, 6 min, 36 min): spaced so that a setup handler that times out or crashes its
// worker is not retried into the integration's throttle (5 timeouts in 60 s) or quarantine (3 crashes in 60 s).
export const DEFAULT_OWED_EVENT_LIMITS: OwedEventLimits = {
  maxAttempts: 5,
  retryBaseMs: 10_000,
  maxRetryDelayMs: 3_600_000,
};
/** Finished events kept per installation (older ones are forgotten). */
export const FINISHED_OWED_EVENTS_KEPT = 100;

/** The delay before the retry that follows attempt `attempts` (1-based). */
export function owedRetryDelay(limits: OwedEventLimits, attempts: number): number {
  return retryDelayMs(limits.retryBaseMs, attempts, limits.maxRetryDelayMs);
}

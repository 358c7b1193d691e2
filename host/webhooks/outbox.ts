// The webhook outbox: the records it stores and returns, its interface, and the small rules both
// the store and the dispatcher share (delivery ids, the receiver endpoint of a URL). Times are
// epoch milliseconds; delivery-view.ts turns them into the public JSON.

import { randomUUID } from 'node:crypto';

export type DeliveryStatus = 'pending' | 'in_flight' | 'succeeded' | 'failed';

export interface NewDelivery {
  installationId: string;
  eventId: string;
  eventType: string;
  url: string;
  /** The exact JSON text that is signed and sent on every attempt. */
  body: string;
}

export interface DeliveryRecord extends NewDelivery {
  id: string;
  status: DeliveryStatus;
  /** Attempts recorded so far (an attempt cut short by a crash is not counted). */
  attempts: number;
  /** When the next attempt is due; null once succeeded or failed. */
  nextAttemptAt: number | null;
  createdAt: number;
  /** The delivery this one re-sends, for manual redeliveries. */
  redeliveryOf: string | null;
}

export interface AttemptRecord {
  /** 1-based attempt number. */
  attempt: number;
  startedAt: number;
  durationMs: number;
  statusCode: number | null;
  errorKind: string | null;
  errorMessage: string | null;
  /** When the following attempt is scheduled; null when this was the last. */
  nextAttemptAt: number | null;
}

export interface DeliveryWithAttempts extends DeliveryRecord {
  attemptLog: AttemptRecord[];
}

/** A delivery's state after an attempt: due again at `nextAttemptAt`, or done. */
export type NextState = { status: 'pending'; nextAttemptAt: number } | { status: 'succeeded' | 'failed' };

export interface Outbox {
  /** Writes new pending deliveries (due at `nowMs`) in one transaction; returns them. */
  enqueue(deliveries: readonly NewDelivery[], nowMs: number): DeliveryRecord[];
  /** Makes every `in_flight` row pending again (a previous process died mid-attempt); returns how many. */
  resetInFlight(): number;
  /** Atomically marks the oldest due pending delivery not bound for `busyEndpoints` as in flight. */
  claimNext(nowMs: number, busyEndpoints?: readonly string[]): DeliveryRecord | undefined;
  /** The earliest `nextAttemptAt` of a pending delivery not bound for `busyEndpoints`, or null. */
  nextDueAt(busyEndpoints?: readonly string[]): number | null;
  /** Records one attempt and the delivery's next state, atomically. */
  recordAttempt(deliveryId: string, attempt: AttemptRecord, next: NextState): void;
  /** Records several attempts in one transaction (one disk sync for the batch). */
  recordAttempts(entries: readonly { deliveryId: string; attempt: AttemptRecord; next: NextState }[]): void;
  /** Runs `work` (claims, reads) in one transaction, so a burst of claims costs one disk sync. */
  transaction<T>(work: () => T): T;
  get(deliveryId: string): DeliveryWithAttempts | undefined;
  /** Newest first; `cursor` is the opaque `nextCursor` of the previous page. Throws ERR_VALIDATION on a bad cursor. */
  listForInstallation(installationId: string, page?: { limit?: number; cursor?: string | null }): { items: DeliveryWithAttempts[]; nextCursor: string | null };
  /** Queues a new delivery of the same event (same eventId and body, new id), optionally to a new URL. */
  redeliver(deliveryId: string, nowMs: number, options?: { url?: string }): DeliveryRecord | undefined;
}

export const DEFAULT_PAGE_LIMIT = 20;
export const MAX_PAGE_LIMIT = 100;

export function newDeliveryId(): string {
  return `dlv_${randomUUID().replaceAll('-', '').slice(0, 24)}`;
}

/** Deliveries to one origin share a concurrency budget, so one slow receiver cannot starve others. */
export function endpointOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

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
  /**
   * Set on a record a claim returned, on stores shared by several hosts: proves the claim when its attempt is
   * recorded.
   */
  claim?: string;
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

/** What the dispatcher can take on in one claim: its free slots, overall and per receiver endpoint. */
export interface ClaimRequest {
  /** At most this many deliveries. */
  limit: number;
  /** Free slots of an endpoint not listed in `room`. */
  perEndpoint: number;
  /** Free slots of each endpoint that has some in use (0: none of its deliveries may be claimed). */
  room: ReadonlyMap<string, number>;
  /**
   * How long the claim holds on a store shared by several hosts: past it, another host may take
   * the delivery over (its claimant is presumed dead). Longer than an attempt can take.
   */
  leaseMs: number;
}

/** One attempt's record and the delivery's state after it. */
export interface AttemptEntry {
  deliveryId: string;
  attempt: AttemptRecord;
  next: NextState;
  /** The claim the attempt was made under (DeliveryRecord.claim); a lapsed claim records nothing over its new owner. */
  claim?: string;
}

export interface WriteOptions {
  /**
   * This host will not start the new deliveries now: a store shared with other hosts tells them,
   * debounced, with the write itself when it can (a store only this process writes ignores it).
   */
  announce?: boolean;
}

/**
 * The durable outbox. Every method may cross a network (PostgreSQL), so each is atomic by itself:
 * a claim marks what it returns in flight in the same transaction that picked it.
 */
export interface Outbox {
  /** Writes new pending deliveries (due at `nowMs`) in one transaction; returns them. */
  enqueue(deliveries: readonly NewDelivery[], nowMs: number, options?: WriteOptions): Promise<DeliveryRecord[]>;
  /**
   * Makes abandoned `in_flight` rows pending again (their claimant died mid-attempt); returns how
   * many. A single-process store resets them all at start; a shared store only those whose lease ended.
   */
  resetInFlight(): Promise<number>;
  /**
   * Atomically marks due pending deliveries in flight, oldest first, within `request`'s room, and
   * returns them in that order. It may return fewer than the room allows (it looks at the `limit`
   * oldest due deliveries of endpoints with room); call again while it returns something.
   */
  claimDue(nowMs: number, request: ClaimRequest): Promise<DeliveryRecord[]>;
  /**
   * claimDue, with the signing secrets active at `nowMs` of the claimed deliveries' installations
   * (none: an empty list), in one round trip: a store across a network offers it; the dispatcher
   * asks any other store for the secrets apart. The secrets are for signing those attempts only.
   */
  claimDueSigned?(
    nowMs: number,
    request: ClaimRequest,
  ): Promise<{ claimed: DeliveryRecord[]; secrets: ReadonlyMap<string, readonly string[]> }>;
  /** The earliest `nextAttemptAt` of a pending delivery not bound for `busyEndpoints`, or null. */
  nextDueAt(busyEndpoints?: readonly string[]): Promise<number | null>;
  /** Records attempts and each delivery's next state, in one transaction. */
  recordAttempts(entries: readonly AttemptEntry[]): Promise<void>;
  get(deliveryId: string): Promise<DeliveryWithAttempts | undefined>;
  /**
   * Newest first; `cursor` is the opaque `nextCursor` of the previous page. Rejects with ERR_VALIDATION on a bad
   * cursor.
   */
  listForInstallation(
    installationId: string,
    page?: { limit?: number; cursor?: string | null },
  ): Promise<{ items: DeliveryWithAttempts[]; nextCursor: string | null }>;
  /** Queues a new delivery of the same event (same eventId and body, new id), optionally to a new URL. */
  redeliver(
    deliveryId: string,
    nowMs: number,
    options?: WriteOptions & { url?: string },
  ): Promise<DeliveryRecord | undefined>;
  /** How many deliveries wait (pending) and are being attempted (in flight): the metrics' outbox depth. */
  depth(): Promise<{ pending: number; inFlight: number }>;
}

/**
 * Picks, from candidates in due order, those that fit the room of `request`: the shared rule of
 * every outbox implementation's claimDue. Pure.
 */
export function pickWithinRoom<T extends { endpoint: string }>(candidates: readonly T[], request: ClaimRequest): T[] {
  const taken = new Map<string, number>();
  const picked: T[] = [];
  for (const candidate of candidates) {
    if (picked.length >= request.limit) break;
    const room = request.room.get(candidate.endpoint) ?? request.perEndpoint;
    const count = taken.get(candidate.endpoint) ?? 0;
    if (count >= room) continue;
    taken.set(candidate.endpoint, count + 1);
    picked.push(candidate);
  }
  return picked;
}

/** Endpoints that have no room left: their deliveries are skipped by a claim. */
export function fullEndpoints(request: ClaimRequest): string[] {
  return [...request.room].filter(([, room]) => room <= 0).map(([endpoint]) => endpoint);
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

// The records the webhook outbox stores and returns. Types only: no behaviour.
// Times are epoch milliseconds; delivery-view.ts turns them into the public JSON.

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

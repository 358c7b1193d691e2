// The public JSON of the delivery log (GET /v1/installations/:id/deliveries): ISO times, each
// attempt with its status code or error. Pure; never includes signatures or secrets.

import type { AttemptRecord, DeliveryWithAttempts } from './outbox.ts';

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export interface AttemptView {
  attempt: number;
  startedAt: string;
  durationMs: number;
  statusCode: number | null;
  error: { kind: string; message: string } | null;
  nextAttemptAt: string | null;
}

export interface DeliveryView {
  id: string;
  installationId: string;
  eventId: string;
  eventType: string;
  url: string;
  status: DeliveryWithAttempts['status'];
  attemptCount: number;
  nextAttemptAt: string | null;
  createdAt: string;
  redeliveryOf: string | null;
  /** The JSON body that is (re)sent, parsed, so the log shows what the receiver got. */
  payload: unknown;
  attempts: AttemptView[];
}

function toAttemptView(attempt: AttemptRecord): AttemptView {
  return {
    attempt: attempt.attempt,
    startedAt: iso(attempt.startedAt) as string,
    durationMs: attempt.durationMs,
    statusCode: attempt.statusCode,
    error: attempt.errorKind === null ? null : { kind: attempt.errorKind, message: attempt.errorMessage ?? '' },
    nextAttemptAt: iso(attempt.nextAttemptAt),
  };
}

export function toDeliveryView(delivery: DeliveryWithAttempts): DeliveryView {
  let payload: unknown;
  try {
    payload = JSON.parse(delivery.body);
  } catch {
    payload = delivery.body;
  }
  return {
    id: delivery.id,
    installationId: delivery.installationId,
    eventId: delivery.eventId,
    eventType: delivery.eventType,
    url: delivery.url,
    status: delivery.status,
    attemptCount: delivery.attempts,
    nextAttemptAt: iso(delivery.nextAttemptAt),
    createdAt: iso(delivery.createdAt) as string,
    redeliveryOf: delivery.redeliveryOf,
    payload,
    attempts: delivery.attemptLog.map(toAttemptView),
  };
}

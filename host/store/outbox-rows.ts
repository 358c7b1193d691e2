// The webhook outbox's rows and the mapping from rows to records (shared by both stores).
// Pure data and conversion; the two outbox stores are its only users. Never exposes `seq` or `endpoint`.

import type { AttemptRecord, DeliveryRecord, DeliveryStatus } from '../webhooks/outbox.ts';

export interface DeliveryRow {
  seq: number;
  id: string;
  installation_id: string;
  event_id: string;
  event_type: string;
  url: string;
  endpoint: string;
  body: string;
  status: string;
  attempts: number;
  next_attempt_at: number | null;
  created_at: number;
  redelivery_of: string | null;
}

export interface AttemptRow {
  delivery_id: string;
  attempt: number;
  started_at: number;
  duration_ms: number;
  status_code: number | null;
  error_kind: string | null;
  error_message: string | null;
  next_attempt_at: number | null;
}

export function toDelivery(row: DeliveryRow): DeliveryRecord {
  return {
    id: row.id,
    installationId: row.installation_id,
    eventId: row.event_id,
    eventType: row.event_type,
    url: row.url,
    body: row.body,
    status: row.status as DeliveryStatus,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    createdAt: row.created_at,
    redeliveryOf: row.redelivery_of,
  };
}

export function toAttempt(row: AttemptRow): AttemptRecord {
  return {
    attempt: row.attempt,
    startedAt: row.started_at,
    durationMs: row.duration_ms,
    statusCode: row.status_code,
    errorKind: row.error_kind,
    errorMessage: row.error_message,
    nextAttemptAt: row.next_attempt_at,
  };
}

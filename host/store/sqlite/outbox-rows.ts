// The SQL schema of the webhook outbox and the mapping from rows to records.
// Pure data and conversion; outbox.ts is the only user. Never exposes `seq` or `endpoint`.

import type { AttemptRecord, DeliveryRecord, DeliveryStatus } from '../../webhooks/outbox.ts';

export const OUTBOX_SCHEMA = `
  CREATE TABLE IF NOT EXISTS webhook_deliveries (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    installation_id TEXT NOT NULL,
    event_id TEXT NOT NULL,
    event_type TEXT NOT NULL,
    url TEXT NOT NULL,
    endpoint TEXT NOT NULL,
    body TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'in_flight', 'succeeded', 'failed')),
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER,
    created_at INTEGER NOT NULL,
    redelivery_of TEXT
  );
  CREATE INDEX IF NOT EXISTS webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at, seq);
  CREATE INDEX IF NOT EXISTS webhook_deliveries_by_installation ON webhook_deliveries (installation_id, seq);
  CREATE TABLE IF NOT EXISTS webhook_attempts (
    delivery_id TEXT NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
    attempt INTEGER NOT NULL,
    started_at INTEGER NOT NULL,
    duration_ms INTEGER NOT NULL,
    status_code INTEGER,
    error_kind TEXT,
    error_message TEXT,
    next_attempt_at INTEGER,
    PRIMARY KEY (delivery_id, attempt)
  );
`;

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

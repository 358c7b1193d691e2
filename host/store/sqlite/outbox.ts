// The durable webhook outbox on the caller's node:sqlite handle: deliveries and their attempts.
// Owns the `webhook_deliveries` / `webhook_attempts` tables; it stores and claims, it never sends,
// signs or decides retries (dispatcher.ts and schedule.ts do). Times are epoch milliseconds.

import type { DatabaseSync } from 'node:sqlite';
import { HostError } from '../../common/errors.ts';
import { OUTBOX_SCHEMA, toAttempt, toDelivery, type AttemptRow, type DeliveryRow } from './outbox-rows.ts';
import { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT, endpointOf, newDeliveryId, type AttemptRecord, type DeliveryRecord, type DeliveryWithAttempts, type NewDelivery, type NextState, type Outbox } from '../../webhooks/outbox.ts';

const encodeCursor = (seq: number): string => Buffer.from(`seq:${seq}`).toString('base64url');
function decodeCursor(cursor: string): number {
  const match = /^seq:(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) throw new HostError('ERR_VALIDATION', '/cursor: not a cursor returned by this list', [{ pointer: '/cursor', message: 'invalid cursor' }]);
  return Number(match[1]);
}

function inTransaction<T>(db: DatabaseSync, work: () => T): T {
  // Nested use (a claim inside transaction()) joins the open transaction.
  if (db.isTransaction) return work();
  db.exec('BEGIN IMMEDIATE');
  try {
    const result = work();
    db.exec('COMMIT');
    return result;
  } catch (error) {
    db.exec('ROLLBACK');
    throw error;
  }
}

export function createOutbox(db: DatabaseSync, options: { newId?: () => string } = {}): Outbox {
  const newId = options.newId ?? newDeliveryId;
  db.exec(OUTBOX_SCHEMA);
  const sql = {
    insert: db.prepare(`INSERT INTO webhook_deliveries (id, installation_id, event_id, event_type, url, endpoint, body, status, attempts, next_attempt_at, created_at, redelivery_of)
      VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?) RETURNING *`),
    reset: db.prepare(`UPDATE webhook_deliveries SET status = 'pending' WHERE status = 'in_flight'`),
    claim: db.prepare(`UPDATE webhook_deliveries SET status = 'in_flight' WHERE seq = (
      SELECT seq FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= ?
        AND endpoint NOT IN (SELECT value FROM json_each(?)) ORDER BY next_attempt_at, seq LIMIT 1) RETURNING *`),
    nextDue: db.prepare(`SELECT MIN(next_attempt_at) AS due FROM webhook_deliveries WHERE status = 'pending' AND endpoint NOT IN (SELECT value FROM json_each(?))`),
    insertAttempt: db.prepare(`INSERT INTO webhook_attempts (delivery_id, attempt, started_at, duration_ms, status_code, error_kind, error_message, next_attempt_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?)`),
    settle: db.prepare(`UPDATE webhook_deliveries SET status = ?, attempts = MAX(attempts, ?), next_attempt_at = ? WHERE id = ?`),
    get: db.prepare('SELECT * FROM webhook_deliveries WHERE id = ?'),
    page: db.prepare('SELECT * FROM webhook_deliveries WHERE installation_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?'),
    attempts: db.prepare('SELECT * FROM webhook_attempts WHERE delivery_id = ? ORDER BY attempt'),
  };
  const withAttempts = (row: DeliveryRow): DeliveryWithAttempts => ({
    ...toDelivery(row),
    attemptLog: (sql.attempts.all(row.id) as unknown as AttemptRow[]).map(toAttempt),
  });
  const recordAttempts: Outbox['recordAttempts'] = (entries) =>
    inTransaction(db, () => {
      for (const { deliveryId, attempt, next } of entries) {
        sql.insertAttempt.run(deliveryId, attempt.attempt, attempt.startedAt, attempt.durationMs, attempt.statusCode, attempt.errorKind, attempt.errorMessage, attempt.nextAttemptAt);
        sql.settle.run(next.status, attempt.attempt, next.status === 'pending' ? next.nextAttemptAt : null, deliveryId);
      }
    });
  const insert = (delivery: NewDelivery, nowMs: number, redeliveryOf: string | null): DeliveryRecord =>
    toDelivery(sql.insert.get(newId(), delivery.installationId, delivery.eventId, delivery.eventType, delivery.url, endpointOf(delivery.url), delivery.body, nowMs, nowMs, redeliveryOf) as unknown as DeliveryRow);

  return {
    enqueue: (deliveries, nowMs) => (deliveries.length === 0 ? [] : inTransaction(db, () => deliveries.map((delivery) => insert(delivery, nowMs, null)))),
    resetInFlight: () => Number(sql.reset.run().changes),
    claimNext(nowMs, busyEndpoints = []) {
      const row = sql.claim.get(nowMs, JSON.stringify(busyEndpoints)) as DeliveryRow | undefined;
      return row === undefined ? undefined : toDelivery(row);
    },
    nextDueAt: (busyEndpoints = []) => (sql.nextDue.get(JSON.stringify(busyEndpoints)) as { due: number | null }).due,
    recordAttempt: (deliveryId, attempt, next) => recordAttempts([{ deliveryId, attempt, next }]),
    recordAttempts,
    transaction: (work) => inTransaction(db, work),
    get(deliveryId) {
      const row = sql.get.get(deliveryId) as DeliveryRow | undefined;
      return row === undefined ? undefined : withAttempts(row);
    },
    listForInstallation(installationId, page = {}) {
      const limit = Math.min(Math.max(Math.trunc(page.limit ?? DEFAULT_PAGE_LIMIT), 1), MAX_PAGE_LIMIT);
      const before = page.cursor ? decodeCursor(page.cursor) : Number.MAX_SAFE_INTEGER;
      const rows = sql.page.all(installationId, before, limit + 1) as unknown as DeliveryRow[];
      const items = rows.slice(0, limit).map(withAttempts);
      return { items, nextCursor: rows.length > limit ? encodeCursor(rows[limit - 1].seq) : null };
    },
    redeliver(deliveryId, nowMs, options = {}) {
      const row = sql.get.get(deliveryId) as DeliveryRow | undefined;
      if (row === undefined) return undefined;
      const original = toDelivery(row);
      return insert({ ...original, url: options.url ?? original.url }, nowMs, original.id);
    },
  };
}

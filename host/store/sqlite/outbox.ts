// The durable webhook outbox on the caller's node:sqlite handle: deliveries and their attempts.
// Owns the `webhook_deliveries` / `webhook_attempts` tables; it stores and claims, it never sends,
// signs or decides retries (dispatcher.ts and schedule.ts do). Times are epoch milliseconds.

import type { DatabaseSync } from 'node:sqlite';
import { toAttempt, toDelivery, type AttemptRow, type DeliveryRow } from '../outbox-rows.ts';
import { inTransaction } from './transaction.ts';
import { decodeSeqCursor, encodeSeqCursor } from '../seq-cursor.ts';
import {
  DEFAULT_PAGE_LIMIT,
  MAX_PAGE_LIMIT,
  endpointOf,
  fullEndpoints,
  newDeliveryId,
  pickWithinRoom,
  type DeliveryRecord,
  type DeliveryWithAttempts,
  type NewDelivery,
  type Outbox,
} from '../../webhooks/outbox.ts';

export function createOutbox(db: DatabaseSync, options: { newId?: () => string } = {}): Outbox {
  const newId = options.newId ?? newDeliveryId;
  const sql = {
    insert: db.prepare(`INSERT INTO webhook_deliveries (id, installation_id, event_id, event_type, url, endpoint, body,
        status, attempts, next_attempt_at, created_at, redelivery_of)
      VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?)`),
    reset: db.prepare(`UPDATE webhook_deliveries SET status = 'pending' WHERE status = 'in_flight'`),
    // The oldest due deliveries of endpoints with room, read through the (status, next_attempt_at, seq) index.
    candidates:
      db.prepare(`SELECT seq, endpoint FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= ?
      AND endpoint NOT IN (SELECT value FROM json_each(?)) ORDER BY next_attempt_at, seq LIMIT ?`),
    // By rowid: `+status` keeps SQLite from walking every pending row of the due index instead.
    claim: db.prepare(
      `UPDATE webhook_deliveries SET status = 'in_flight' WHERE seq IN (SELECT ` +
        `value FROM json_each(?)) AND +status = 'pending' RETURNING *`,
    ),
    // The due index in order, stopping at the first row outside the busy endpoints (MIN() read them all).
    nextDue:
      db.prepare(`SELECT next_attempt_at AS due FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at IS
        NOT NULL
      AND endpoint NOT IN (SELECT value FROM json_each(?)) ORDER BY next_attempt_at LIMIT 1`),
    // A batch of results is two statements, whatever its size: the attempts, then the deliveries' new state,
    // both read from one JSON array of [id, attempt, startedAt, durationMs, statusCode, errorKind, errorMessage,
    // attemptNextAt, status, nextAt].
    insertAttempts:
      db.prepare(`INSERT INTO webhook_attempts (delivery_id, attempt, started_at, duration_ms, status_code,
        error_kind, error_message, next_attempt_at)
      SELECT value->>0, value->>1, value->>2, value->>3, value->>4, value->>5, value->>6, value->>7 FROM json_each(?)`),
    settle: db.prepare(`UPDATE webhook_deliveries AS d
      SET status = r.value->>8, attempts = MAX(d.attempts, r.value->>1), next_attempt_at = r.value->>9
      FROM json_each(?) AS r WHERE d.id = r.value->>0`),
    get: db.prepare('SELECT * FROM webhook_deliveries WHERE id = ?'),
    page: db.prepare(
      'SELECT * FROM webhook_deliveries WHERE installation_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?',
    ),
    attempts: db.prepare('SELECT * FROM webhook_attempts WHERE delivery_id = ? ORDER BY attempt'),
    depth: db.prepare(
      `SELECT status, COUNT(*) AS count FROM webhook_deliveries WHERE ` +
        `status IN ('pending', 'in_flight') GROUP BY status`,
    ),
  };
  const withAttempts = (row: DeliveryRow): DeliveryWithAttempts => ({
    ...toDelivery(row),
    attemptLog: (sql.attempts.all(row.id) as unknown as AttemptRow[]).map(toAttempt),
  });
  // The record is built from what was written (no RETURNING: it would copy the body back out).
  const insert = (delivery: NewDelivery, nowMs: number, redeliveryOf: string | null): DeliveryRecord => {
    const id = newId();
    const { installationId, eventId, eventType, url, body } = delivery;
    sql.insert.run(id, installationId, eventId, eventType, url, endpointOf(url), body, nowMs, nowMs, redeliveryOf);
    return {
      id,
      installationId,
      eventId,
      eventType,
      url,
      body,
      status: 'pending',
      attempts: 0,
      nextAttemptAt: nowMs,
      createdAt: nowMs,
      redeliveryOf,
    };
  };

  return {
    // One row is one statement, atomic and durable by itself; several share one transaction.
    enqueue: async (deliveries, nowMs) =>
      deliveries.length === 1
        ? [insert(deliveries[0], nowMs, null)]
        : deliveries.length === 0
          ? []
          : inTransaction(db, () => deliveries.map((delivery) => insert(delivery, nowMs, null))),
    resetInFlight: async () => Number(sql.reset.run().changes),
    // No transaction: both statements run in one synchronous call, so nothing of this process comes
    // between them, and the claim itself takes only rows still pending.
    async claimDue(nowMs, request) {
      if (request.limit <= 0) return [];
      const candidates = sql.candidates.all(
        nowMs,
        JSON.stringify(fullEndpoints(request)),
        request.limit,
      ) as unknown as { seq: number; endpoint: string }[];
      const picked = pickWithinRoom(candidates, request);
      if (picked.length === 0) return [];
      const rows = sql.claim.all(JSON.stringify(picked.map((row) => row.seq))) as unknown as DeliveryRow[];
      const bySeq = new Map(rows.map((row) => [row.seq, row]));
      return picked.flatMap((row) => {
        const claimed = bySeq.get(row.seq);
        return claimed === undefined ? [] : [toDelivery(claimed)];
      });
    },
    nextDueAt: async (busyEndpoints = []) =>
      (sql.nextDue.get(JSON.stringify(busyEndpoints)) as { due: number } | undefined)?.due ?? null,
    async recordAttempts(entries) {
      if (entries.length === 0) return;
      const rows = JSON.stringify(
        entries.map(({ deliveryId, attempt, next }) => [
          deliveryId,
          attempt.attempt,
          attempt.startedAt,
          attempt.durationMs,
          attempt.statusCode,
          attempt.errorKind,
          attempt.errorMessage,
          attempt.nextAttemptAt,
          next.status,
          next.status === 'pending' ? next.nextAttemptAt : null,
        ]),
      );
      inTransaction(db, () => {
        sql.insertAttempts.run(rows);
        sql.settle.run(rows);
      });
    },
    async get(deliveryId) {
      const row = sql.get.get(deliveryId) as DeliveryRow | undefined;
      return row === undefined ? undefined : withAttempts(row);
    },
    async listForInstallation(installationId, page = {}) {
      const limit = Math.min(Math.max(Math.trunc(page.limit ?? DEFAULT_PAGE_LIMIT), 1), MAX_PAGE_LIMIT);
      const before = page.cursor ? decodeSeqCursor(page.cursor) : Number.MAX_SAFE_INTEGER;
      const rows = sql.page.all(installationId, before, limit + 1) as unknown as DeliveryRow[];
      const items = rows.slice(0, limit).map(withAttempts);
      return { items, nextCursor: rows.length > limit ? encodeSeqCursor(rows[limit - 1].seq) : null };
    },
    async depth() {
      const counts = new Map(
        (sql.depth.all() as unknown as { status: string; count: number }[]).map((row) => [
          row.status,
          Number(row.count),
        ]),
      );
      return { pending: counts.get('pending') ?? 0, inFlight: counts.get('in_flight') ?? 0 };
    },
    async redeliver(deliveryId, nowMs, options = {}) {
      const row = sql.get.get(deliveryId) as DeliveryRow | undefined;
      if (row === undefined) return undefined;
      const original = toDelivery(row);
      return insert({ ...original, url: options.url ?? original.url }, nowMs, original.id);
    },
  };
}

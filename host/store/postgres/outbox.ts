// The durable webhook outbox on PostgreSQL, shared by every host: a claim is one statement that
// picks due rows with FOR UPDATE SKIP LOCKED (two hosts never take the same row) and leases them
// with a claim token; a host that dies mid-attempt loses its rows when the lease ends and another
// host takes them over. Recording an attempt checks the claim, so a late host never overwrites the
// new owner's state. Retries keep their schedule (next_attempt_at) whichever host runs them. An insert
// the dispatcher cannot start now carries the announcement to the other hosts (work-notices.ts).

import { randomUUID } from 'node:crypto';
import { toAttempt, toDelivery, type AttemptRow, type DeliveryRow } from '../outbox-rows.ts';
import {
  DEFAULT_PAGE_LIMIT,
  MAX_PAGE_LIMIT,
  endpointOf,
  fullEndpoints,
  newDeliveryId,
  type DeliveryRecord,
  type DeliveryWithAttempts,
  type ClaimRequest,
  type NewDelivery,
  type Outbox,
} from '../../webhooks/outbox.ts';
import { activeByInstallation, type SigningSecretRow } from '../signing-secret-rows.ts';
import { groupedWrites } from '../grouped-writes.ts';
import type { Db } from './connection.ts';
import { CHANNEL } from './notifications.ts';
import { decodeSeqCursor, encodeSeqCursor } from '../seq-cursor.ts';

type ClaimedRow = DeliveryRow & { claim_token: string | null };
// The claimed row with its installation's secrets row beside it (null columns: none stored).
type SignedRow = ClaimedRow & { [K in keyof SigningSecretRow]: SigningSecretRow[K] | null };

// The delivery's own columns only (toDelivery names them): a signed claim's secrets stay apart.
const toClaimed = (row: ClaimedRow): DeliveryRecord => ({
  ...toDelivery(row),
  ...(row.claim_token !== null ? { claim: row.claim_token } : {}),
});

/** Claimed rows as records, oldest due first (the claim's UPDATE returns them in no order). */
const inDueOrder = (rows: ClaimedRow[]): DeliveryRecord[] =>
  rows.sort((a, b) => (a.next_attempt_at ?? 0) - (b.next_attempt_at ?? 0) || a.seq - b.seq).map(toClaimed);

const INSERT = `INSERT INTO webhook_deliveries (id, installation_id, event_id, event_type, url, endpoint, body, status,
  attempts, next_attempt_at, created_at, redelivery_of)
  SELECT id, installation_id, event_id, event_type, url, endpoint, body, 'pending', 0, now_ms, now_ms, redelivery_of
  FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::bigint[],
    $9::text[]) AS d(id, installation_id, event_id, event_type, url, endpoint, body, now_ms, redelivery_of)`;

// The same insert telling the other hosts ($10: the channel, $11: the payload) that its rows wait for
// them: NOTIFY is delivered at commit, once the rows are visible, and costs no round trip of its own.
const INSERT_ANNOUNCING = `WITH inserted AS (${INSERT}) SELECT pg_notify($10, $11)`;

// One statement: the oldest due rows of endpoints with room (pending, or in flight under a lease
// that ended), locked and skipped by any other host's claim running at the same time; ranked per
// endpoint so no endpoint gets more than its room; leased to this claim.
const CLAIM_STEPS = `candidates AS (
    SELECT seq, endpoint, next_attempt_at FROM webhook_deliveries
    WHERE status IN ('pending', 'in_flight') AND next_attempt_at <= $1 AND (status = 'pending' OR lease_until <= $1)
      AND NOT (endpoint = ANY($2::text[]))
    ORDER BY next_attempt_at, seq LIMIT $3 FOR UPDATE SKIP LOCKED
  ), ranked AS (
    SELECT seq, endpoint, row_number() OVER (PARTITION BY endpoint ORDER BY next_attempt_at, seq) AS rank FROM
      candidates
  ), room AS (
    SELECT * FROM unnest($4::text[], $5::int[]) AS r(endpoint, free)
  )`;
const CLAIM_UPDATE = `UPDATE webhook_deliveries d SET status = 'in_flight', lease_until = $6, claim_token = $7
  FROM ranked LEFT JOIN room ON room.endpoint = ranked.endpoint
  WHERE d.seq = ranked.seq AND ranked.rank <= COALESCE(room.free, $8)
  RETURNING d.*`;
const CLAIM = `WITH ${CLAIM_STEPS} ${CLAIM_UPDATE}`;

// The same claim returning each row's signing secrets beside it, so that the batch is signed
// without a second round trip (Outbox.claimDueSigned).
const CLAIM_SIGNED = `WITH ${CLAIM_STEPS}, claimed AS (${CLAIM_UPDATE})
  SELECT claimed.*, s.current, s.previous, s.previous_expires_at
  FROM claimed LEFT JOIN webhook_secrets s ON s.installation_id = claimed.installation_id`;

// One statement for a batch of results (atomic by itself): each delivery is settled only under the
// claim its attempt was made with (or unconditionally when no claim is given), and its attempt is
// logged only when it was settled, so a host whose lease lapsed writes nothing over the new owner.
const SETTLE = `WITH results AS (
    SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::bigint[], $5::text[], $6::bigint[], $7::int[],
      $8::int[], $9::text[], $10::text[], $11::bigint[])
      AS r(id, status, attempt, next_at, claim, started_at, duration_ms, status_code, error_kind, error_message,
        attempt_next_at)
  ), settled AS (
    UPDATE webhook_deliveries d SET status = r.status, attempts = GREATEST(d.attempts, r.attempt), next_attempt_at =
      r.next_at, lease_until = NULL, claim_token = NULL
    FROM results r
    WHERE d.id = r.id AND (r.claim IS NULL OR (d.status = 'in_flight' AND d.claim_token = r.claim))
    RETURNING d.id
  )
  INSERT INTO webhook_attempts (delivery_id, attempt, started_at, duration_ms, status_code, error_kind, error_message,
    next_attempt_at)
  SELECT r.id, r.attempt, r.started_at, r.duration_ms, r.status_code, r.error_kind, r.error_message, r.attempt_next_at
    FROM results r JOIN settled USING (id)
  ON CONFLICT (delivery_id, attempt) DO NOTHING`;

/** One new row, its id chosen before any statement (so that a write can be repeated). */
interface NewRow extends DeliveryRecord {
  endpoint: string;
  /** Its caller wants the other hosts told (WriteOptions.announce). */
  announce: boolean;
}

export interface PostgresOutboxOptions {
  newId?: () => string;
  /** The payload of the announcement an insert of deliveries for these endpoints carries, if one may go now. */
  notice?: (endpoints: readonly string[]) => string | undefined;
}

export function createPostgresOutbox(db: Db, options: PostgresOutboxOptions = {}): Outbox {
  const newId = options.newId ?? newDeliveryId;
  const attemptsOf = async (ids: string[]): Promise<Map<string, AttemptRow[]>> => {
    const byDelivery = new Map<string, AttemptRow[]>(ids.map((id) => [id, []]));
    if (ids.length === 0) return byDelivery;
    const { rows } = await db.query<AttemptRow>(
      'SELECT * FROM webhook_attempts WHERE delivery_id = ANY($1::text[]) ORDER BY delivery_id, attempt',
      [ids],
    );
    for (const row of rows) byDelivery.get(row.delivery_id)?.push(row);
    return byDelivery;
  };
  const withAttempts = async (rows: DeliveryRow[]): Promise<DeliveryWithAttempts[]> => {
    const attempts = await attemptsOf(rows.map((row) => row.id));
    return rows.map((row) => ({ ...toDelivery(row), attemptLog: (attempts.get(row.id) ?? []).map(toAttempt) }));
  };
  const writeRows = async (rows: NewRow[]): Promise<DeliveryRecord[]> => {
    const column = <K extends keyof NewRow>(key: K) => rows.map((row) => row[key]);
    const ids = column('id');
    const values = [
      ids,
      column('installationId'),
      column('eventId'),
      column('eventType'),
      column('url'),
      column('endpoint'),
      column('body'),
      column('createdAt'),
      column('redeliveryOf'),
    ];
    const announced = rows.filter((row) => row.announce).map((row) => row.endpoint);
    const notice = announced.length > 0 ? options.notice?.([...new Set(announced)]) : undefined;
    try {
      if (notice === undefined) await db.query(INSERT, values, 'outbox_insert');
      else await db.query(INSERT_ANNOUNCING, [...values, CHANNEL, notice], 'outbox_insert_announcing');
    } catch (error) {
      // When the connection died after a commit and the retry met our own rows, every id is there
      // already and nothing was inserted twice.
      if ((error as { code?: string }).code !== '23505') throw error;
      const { rows: found } = await db.query<{ id: string }>(
        'SELECT id FROM webhook_deliveries WHERE id = ANY($1::text[]) AND event_id = ANY($2::text[])',
        [ids, column('eventId')],
      );
      if (found.length !== new Set(ids).size || new Set(ids).size !== ids.length) throw error;
    }
    // The records are what was written (RETURNING would copy every body back from the server).
    return rows.map(({ endpoint: _endpoint, announce: _announce, ...record }) => record);
  };
  // Concurrent enqueues share one statement (grouped-writes.ts), kept far below PostgreSQL's 1 GB
  // per message (a body may be 1 MiB): a data error (class 22) or a constraint's (23) may be one
  // caller's, so such a group is written again caller by caller.
  const writeGrouped = groupedWrites(writeRows, {
    maxItems: 1_000,
    maxBytes: 16 * 1024 * 1024,
    sizeOf: (row) => row.body.length + row.url.length,
    mayBeOneCallers: (error) => /^2[23]/.test(String((error as { code?: unknown } | null)?.code ?? '')),
  });
  const insert = (
    deliveries: readonly (NewDelivery & { redeliveryOf: string | null })[],
    nowMs: number,
    announce = false,
  ): Promise<DeliveryRecord[]> =>
    writeGrouped(
      deliveries.map((delivery) => ({
        id: newId(),
        installationId: delivery.installationId,
        eventId: delivery.eventId,
        eventType: delivery.eventType,
        url: delivery.url,
        endpoint: endpointOf(delivery.url),
        body: delivery.body,
        status: 'pending' as const,
        attempts: 0,
        nextAttemptAt: nowMs,
        createdAt: nowMs,
        redeliveryOf: delivery.redeliveryOf,
        announce,
      })),
    );

  const claim = async <R extends ClaimedRow>(
    text: string,
    name: string,
    nowMs: number,
    request: ClaimRequest,
  ): Promise<R[]> => {
    const room = [...request.room].filter(([, free]) => free > 0);
    const values = [
      nowMs,
      fullEndpoints(request),
      request.limit,
      room.map(([endpoint]) => endpoint),
      room.map(([, free]) => free),
      nowMs + request.leaseMs,
      randomUUID(),
      request.perEndpoint,
    ];
    return (await db.query<R>(text, values, name)).rows;
  };

  return {
    enqueue: async (deliveries, nowMs, writeOptions = {}) =>
      deliveries.length === 0
        ? []
        : insert(
            deliveries.map((delivery) => ({ ...delivery, redeliveryOf: null })),
            nowMs,
            writeOptions.announce,
          ),
    resetInFlight: async () =>
      (
        await db.query(
          `UPDATE webhook_deliveries SET status = 'pending', lease_until = NULL, ` +
            `claim_token = NULL WHERE status = 'in_flight' AND lease_until <= $1`,
          [Date.now()],
        )
      ).rowCount ?? 0,
    async claimDue(nowMs, request) {
      if (request.limit <= 0) return [];
      return inDueOrder(await claim(CLAIM, 'outbox_claim', nowMs, request));
    },
    async claimDueSigned(nowMs, request) {
      if (request.limit <= 0) return { claimed: [], secrets: new Map() };
      const rows = await claim<SignedRow>(CLAIM_SIGNED, 'outbox_claim_signed', nowMs, request);
      const stored = rows.filter((row): row is ClaimedRow & SigningSecretRow => row.current !== null);
      const secrets = activeByInstallation(
        rows.map((row) => row.installation_id),
        stored,
        nowMs,
      );
      return { claimed: inDueOrder(rows), secrets };
    },
    nextDueAt: async (busyEndpoints = []) =>
      (
        await db.query<{ due: number | null }>(
          `SELECT MIN(next_attempt_at) AS due FROM webhook_deliveries WHERE ` +
            `status = 'pending' AND NOT (endpoint = ANY($1::text[]))`,
          [busyEndpoints],
          'outbox_next_due',
        )
      ).rows[0].due,
    async recordAttempts(entries) {
      if (entries.length === 0) return;
      const column = <T>(pick: (entry: (typeof entries)[number]) => T) => entries.map(pick);
      await db.query(
        SETTLE,
        [
          column((e) => e.deliveryId),
          column((e) => e.next.status),
          column((e) => e.attempt.attempt),
          column((e) => (e.next.status === 'pending' ? e.next.nextAttemptAt : null)),
          column((e) => e.claim ?? null),
          column((e) => e.attempt.startedAt),
          column((e) => e.attempt.durationMs),
          column((e) => e.attempt.statusCode),
          column((e) => e.attempt.errorKind),
          column((e) => e.attempt.errorMessage),
          column((e) => e.attempt.nextAttemptAt),
        ],
        'outbox_settle',
      );
    },
    async get(deliveryId) {
      const { rows } = await db.query<DeliveryRow>('SELECT * FROM webhook_deliveries WHERE id = $1', [deliveryId]);
      return rows[0] === undefined ? undefined : (await withAttempts(rows))[0];
    },
    async listForInstallation(installationId, page = {}) {
      const limit = Math.min(Math.max(Math.trunc(page.limit ?? DEFAULT_PAGE_LIMIT), 1), MAX_PAGE_LIMIT);
      const before = page.cursor ? decodeSeqCursor(page.cursor) : Number.MAX_SAFE_INTEGER;
      const { rows } = await db.query<DeliveryRow>(
        'SELECT * FROM webhook_deliveries WHERE installation_id = $1 AND seq < $2 ORDER BY seq DESC LIMIT $3',
        [installationId, before, limit + 1],
      );
      const items = await withAttempts(rows.slice(0, limit));
      return { items, nextCursor: rows.length > limit ? encodeSeqCursor(rows[limit - 1].seq) : null };
    },
    async depth() {
      const { rows } = await db.query<{ status: string; count: number }>(
        `SELECT status, COUNT(*)::int AS count FROM webhook_deliveries ` +
          `WHERE status IN ('pending', 'in_flight') GROUP BY status`,
      );
      const counts = new Map(rows.map((row) => [row.status, row.count]));
      return { pending: counts.get('pending') ?? 0, inFlight: counts.get('in_flight') ?? 0 };
    },
    async redeliver(deliveryId, nowMs, redeliverOptions = {}) {
      const { rows } = await db.query<DeliveryRow>('SELECT * FROM webhook_deliveries WHERE id = $1', [deliveryId]);
      if (rows[0] === undefined) return undefined;
      const original = toDelivery(rows[0]);
      const url = redeliverOptions.url ?? original.url;
      return (await insert([{ ...original, url, redeliveryOf: original.id }], nowMs, redeliverOptions.announce))[0];
    },
  };
}

// The owed_events table's rows, their mapping to an OwedEventRecord, and the claim order both SQL
// stores use. Pure data, conversion and statement text; the owed-event stores are its only users.

import type { NewOwedEvent, OwedEventRecord } from '../owed-events/model.ts';

/** A row of `owed_events`; integer columns arrive as numbers from SQLite and as strings or numbers from PostgreSQL. */
export interface OwedEventRow {
  seq: number | string;
  id: string;
  installation_id: string;
  integration: string;
  type: string;
  event: string;
  request_id: string | null;
  status: OwedEventRecord['status'];
  attempts: number;
  run_at: number | string;
  lease_until: number | string | null;
  last_status: number | null;
  last_error: string | null;
  created_at: number | string;
  updated_at: number | string;
}

export function toOwedEvent(row: OwedEventRow): OwedEventRecord {
  return {
    id: row.id,
    installationId: row.installation_id,
    integration: row.integration,
    event: JSON.parse(row.event) as OwedEventRecord['event'],
    ...(row.request_id !== null ? { requestId: row.request_id } : {}),
    status: row.status,
    attempts: row.attempts,
    runAt: Number(row.run_at),
    ...(row.lease_until !== null ? { leaseUntil: Number(row.lease_until) } : {}),
    ...(row.last_status !== null ? { lastStatus: row.last_status } : {}),
    ...(row.last_error !== null ? { lastError: row.last_error } : {}),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}

/** The values of one INSERT, in the column order of `INSERT_COLUMNS`. */
export function owedEventValues(event: NewOwedEvent): unknown[] {
  return [
    event.id,
    event.installationId,
    event.integration,
    event.event.type,
    JSON.stringify(event.event),
    event.requestId ?? null,
    event.createdAt,
    event.createdAt,
    event.createdAt,
  ];
}

export const INSERT_COLUMNS =
  '(id, installation_id, integration, type, event, request_id, status, run_at, created_at, updated_at)';

/** Whether the event `alias` names has no unfinished event of its installation before it. */
const atHead = (alias: string) =>
  `NOT EXISTS (SELECT 1 FROM owed_events p WHERE p.installation_id ` +
  `= ${alias}.installation_id AND p.seq < ${alias}.seq AND p.status IN ('pending', ` +
  `'running'))`;

/**
 * When the next claim may find something: the earliest due time of a pending event at the head of
 * its installation (one waiting behind another is not due, however old), or the earliest lease to lapse.
 */
export const NEXT_DUE_QUERY = `SELECT (SELECT MIN(e.run_at) FROM owed_events e WHERE e.status = 'pending' AND
  ${atHead('e')}) AS pending,
  (SELECT MIN(lease_until) FROM owed_events WHERE status = 'running') AS lease`;

/**
 * The `seq` of up to `limit` events due at `now` (pending and due, or running with a lapsed lease)
 * that are each the oldest unfinished event of their installation: an installation's next event
 * waits until the one before it is delivered or failed for good. Oldest first. `now` and `limit`
 * are the spellings of two parameters (`?1`/`?2` or `$1`/`$3`).
 */
export function dueOwedEventsQuery(now: string, limit: string): string {
  return `SELECT e.seq FROM owed_events e
    WHERE ((e.status = 'pending' AND e.run_at <= ${now}) OR (e.status = 'running' AND e.lease_until <= ${now}))
      AND ${atHead('e')}
    ORDER BY e.run_at, e.seq
    LIMIT ${limit}`;
}

// Owed platform events on PostgreSQL (the OwedEventStore of owed-events/), shared by every host: a
// claim takes each installation's oldest unfinished event with FOR UPDATE SKIP LOCKED (two hosts
// never take the same one) under a lease; an event whose host died is taken again when its lease
// ends, and the late host's result is not written. Inserts happen in the installation store's
// transactions (installations.ts). Storage only: when to retry is the runner's.

import { FINISHED_OWED_EVENTS_KEPT, type NewOwedEvent, type OwedEventStore } from '../../owed-events/model.ts';
import type { Db, Queryable } from './connection.ts';
import {
  dueOwedEventsQuery,
  INSERT_COLUMNS,
  NEXT_DUE_QUERY,
  owedEventValues,
  toOwedEvent,
  type OwedEventRow,
} from '../owed-event-rows.ts';

// The locking read re-checks that each picked event is still due (another host may have claimed
// it since) and skips what another host holds. An event held (locked, not yet committed) by
// another host still reads as unfinished here, so the event after it is never picked meanwhile.
const CLAIM = `WITH picked AS (${dueOwedEventsQuery('$1', '$3')})
  UPDATE owed_events SET status = 'running', attempts = attempts + 1, lease_until = $2, updated_at = $1
  WHERE seq IN (
    SELECT seq FROM owed_events WHERE seq IN (SELECT seq FROM picked)
      AND ((status = 'pending' AND run_at <= $1) OR (status = 'running' AND lease_until <= $1))
    FOR UPDATE SKIP LOCKED
  )
  RETURNING *`;

/**
 * Writes owed events inside the transaction of the change that causes them; re-runnable (a retried transaction inserts
 * each once).
 */
export async function writeOwedEvents(client: Queryable, events: readonly NewOwedEvent[]): Promise<void> {
  for (const event of events) {
    await client.query(
      `INSERT INTO owed_events ${INSERT_COLUMNS} VALUES ($1, $2, $3, $4, ` +
        `$5, $6, 'pending', $7, $8, $9) ON CONFLICT (id) DO NOTHING`,
      owedEventValues(event),
    );
  }
}

export function createPostgresOwedEventStore(db: Db): OwedEventStore {
  return {
    async claimDue(now, leaseMs, limit) {
      const { rows } = await db.query<OwedEventRow>(CLAIM, [now, now + leaseMs, limit]);
      return rows.sort((a, b) => Number(a.seq) - Number(b.seq)).map(toOwedEvent);
    },
    // Other hosts may be running theirs: only a lapsed lease means its claimant is gone.
    resumeAbandoned: async (now) =>
      (
        await db.query(
          "UPDATE owed_events SET status = 'pending', lease_until = NULL, run_at = " +
            "$1, updated_at = $1 WHERE status = 'running' AND lease_until <= $1",
          [now],
        )
      ).rowCount ?? 0,
    async nextDueAt() {
      const { rows } = await db.query<{ pending: string | null; lease: string | null }>(NEXT_DUE_QUERY);
      const times = [rows[0].pending, rows[0].lease].filter((at): at is string => at !== null).map(Number);
      return times.length === 0 ? undefined : Math.min(...times);
    },
    settle: (id, outcome, attempt) =>
      db.transaction(async (client) => {
        const { rows } = await client.query<{ installation_id: string }>(
          'UPDATE owed_events SET status = $1, run_at = COALESCE($2, run_at), lease_until = NULL, last_status ' +
            "= $3, last_error = $4, updated_at = $5 WHERE id = $6 AND status = 'running' AND attempts = $7 " +
            'RETURNING installation_id',
          [
            outcome.status,
            outcome.status === 'pending' ? outcome.runAt : null,
            attempt.lastStatus,
            attempt.lastError ?? null,
            attempt.now,
            id,
            attempt.number,
          ],
        );
        if (rows[0] === undefined || outcome.status === 'pending') return;
        await client.query(
          "DELETE FROM owed_events WHERE installation_id = $1 AND status IN ('delivered', 'failed') AND seq < " +
            "(SELECT seq FROM owed_events WHERE installation_id = $1 AND status IN ('delivered', 'failed') " +
            'ORDER BY seq DESC LIMIT 1 OFFSET $2)',
          [rows[0].installation_id, FINISHED_OWED_EVENTS_KEPT - 1],
        );
      }),
    async depth() {
      const { rows } = await db.query<{ status: string; n: string }>(
        "SELECT status, COUNT(*) AS n FROM owed_events WHERE status IN ('pending', 'running') GROUP BY status",
      );
      const counts = new Map(rows.map((row) => [row.status, Number(row.n)]));
      return { pending: counts.get('pending') ?? 0, running: counts.get('running') ?? 0 };
    },
    async list(installationId, limit) {
      const { rows } = await db.query<OwedEventRow>(
        'SELECT * FROM owed_events WHERE installation_id = $1 ORDER BY seq DESC LIMIT $2',
        [installationId, limit],
      );
      return rows.map(toOwedEvent);
    },
  };
}

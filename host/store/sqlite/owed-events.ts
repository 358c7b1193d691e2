// Owed platform events on node:sqlite (the OwedEventStore of owed-events/): claims of each
// installation's oldest unfinished event under a lease, settling, and the newest finished events
// per installation (table: migrations.ts, version 13). The inserts happen in the installation
// store's transactions (installations.ts). Storage only: when to retry is the runner's.

import type { DatabaseSync } from 'node:sqlite';
import { FINISHED_OWED_EVENTS_KEPT, type NewOwedEvent, type OwedEventStore } from '../../owed-events/model.ts';
import {
  dueOwedEventsQuery,
  INSERT_COLUMNS,
  NEXT_DUE_QUERY,
  owedEventValues,
  toOwedEvent,
  type OwedEventRow,
} from '../owed-event-rows.ts';
import { inTransaction } from './transaction.ts';

/** Writes owed events; call inside the transaction of the change that causes them. */
export function sqliteOwedEventWriter(db: DatabaseSync): (events: readonly NewOwedEvent[]) => void {
  const insert = db.prepare(`INSERT INTO owed_events ${INSERT_COLUMNS} VALUES (?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?)`);
  return (events) => {
    for (const event of events) insert.run(...(owedEventValues(event) as (string | number | null)[]));
  };
}

export function createSqliteOwedEventStore(db: DatabaseSync): OwedEventStore {
  const statements = {
    claim: db.prepare(
      `WITH picked AS (${dueOwedEventsQuery('?1', '?2')}) UPDATE owed_events SET status = 'running', attempts ` +
        `= attempts + 1, lease_until = ?3, updated_at = ?1 WHERE seq IN (SELECT seq FROM picked) RETURNING *`,
    ),
    next: db.prepare(NEXT_DUE_QUERY),
    // One process owns the file: whatever is running was claimed by a run that is over.
    resume: db.prepare(
      "UPDATE owed_events SET status = 'pending', lease_until = NULL, " +
        "run_at = ?1, updated_at = ?1 WHERE status = 'running'",
    ),
    settle: db.prepare(
      'UPDATE owed_events SET status = ?, run_at = COALESCE(?, run_at), lease_until = NULL, last_status = ?, ' +
        "last_error = ?, updated_at = ? WHERE id = ? AND status = 'running' AND attempts = ? RETURNING " +
        'installation_id',
    ),
    prune: db.prepare(
      "DELETE FROM owed_events WHERE installation_id = ? AND status IN ('delivered', 'failed') AND seq < " +
        "(SELECT seq FROM owed_events WHERE installation_id = ? AND status IN ('delivered', 'failed') ORDER BY " +
        'seq DESC LIMIT 1 OFFSET ?)',
    ),
    depth: db.prepare(
      "SELECT status, COUNT(*) AS n FROM owed_events WHERE status IN ('pending', 'running') GROUP BY status",
    ),
    list: db.prepare('SELECT * FROM owed_events WHERE installation_id = ? ORDER BY seq DESC LIMIT ?'),
  };
  return {
    async claimDue(now, leaseMs, limit) {
      const rows = statements.claim.all(now, limit, now + leaseMs) as unknown as OwedEventRow[];
      return rows.sort((a, b) => Number(a.seq) - Number(b.seq)).map(toOwedEvent);
    },
    resumeAbandoned: async (now) => Number(statements.resume.run(now).changes),
    async nextDueAt() {
      const { pending, lease } = statements.next.get() as { pending: number | null; lease: number | null };
      const times = [pending, lease].filter((at): at is number => at !== null);
      return times.length === 0 ? undefined : Math.min(...times);
    },
    async settle(id, outcome, attempt) {
      inTransaction(db, () => {
        const runAt = outcome.status === 'pending' ? outcome.runAt : null;
        const settled = statements.settle.get(
          outcome.status,
          runAt,
          attempt.lastStatus,
          attempt.lastError ?? null,
          attempt.now,
          id,
          attempt.number,
        ) as { installation_id: string } | undefined;
        if (settled !== undefined && outcome.status !== 'pending')
          statements.prune.run(settled.installation_id, settled.installation_id, FINISHED_OWED_EVENTS_KEPT - 1);
      });
    },
    async depth() {
      const counts = new Map(
        (statements.depth.all() as { status: string; n: number }[]).map((row) => [row.status, Number(row.n)]),
      );
      return { pending: counts.get('pending') ?? 0, running: counts.get('running') ?? 0 };
    },
    async list(installationId, limit) {
      return (statements.list.all(installationId, limit) as unknown as OwedEventRow[]).map(toOwedEvent);
    },
  };
}

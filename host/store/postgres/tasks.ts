// Integration tasks on PostgreSQL (the TaskStore of tasks/), shared by every host: a claim picks due
// rows with FOR UPDATE SKIP LOCKED (two hosts never take the same task) and leases them; a task
// whose host died is taken again when its lease ends, and the late host's result is not written
// (settling checks the attempt). Storage only: when to retry is the runner's.

import { FINISHED_TASKS_KEPT, type TaskStore } from '../../tasks/model.ts';
import type { Db } from './connection.ts';
import { toTask, type TaskRow } from '../task-rows.ts';
import { fairDueTasksQuery } from '../task-claim.ts';

// The fair order picks; the locking read re-checks that each is still due (another host may have
// claimed it since) and skips what another host holds.
const CLAIM = `WITH picked AS (${fairDueTasksQuery('$1', '$3')})
  UPDATE tasks SET status = 'running', attempts = attempts + 1, lease_until = $2, updated_at = $1
  WHERE seq IN (
    SELECT seq FROM tasks WHERE seq IN (SELECT seq FROM picked)
      AND ((status = 'pending' AND run_at <= $1) OR (status = 'running' AND lease_until <= $1))
    FOR UPDATE SKIP LOCKED
  )
  RETURNING *`;

export function createPostgresTaskStore(db: Db): TaskStore {
  return {
    enqueue: (task, maxPending) =>
      db.transaction(async (client) => {
        // One queue per integration: its inserts wait for each other, so the bound holds across hosts.
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`tasks:${task.integration}`]);
        const waiting = Number(
          (
            await client.query<{ n: string }>(
              "SELECT COUNT(*) AS n FROM tasks WHERE integration = $1 AND status IN ('pending', 'running')",
              [task.integration],
            )
          ).rows[0].n,
        );
        if (waiting >= maxPending) return false;
        await client.query(
          'INSERT INTO tasks (id, integration, installation_id, event_id, payload, status, run_at, ' +
            "created_at, updated_at) VALUES ($1, $2, $3, $4, $5, 'pending', $6, $7, $7) ON CONFLICT (id) DO " +
            'NOTHING',
          [
            task.id,
            task.integration,
            task.installationId ?? null,
            task.eventId,
            JSON.stringify(task.payload),
            task.runAt,
            task.createdAt,
          ],
        );
        return true;
      }),
    async claimDue(now, leaseMs, limit) {
      const { rows } = await db.query<TaskRow>(CLAIM, [now, now + leaseMs, limit]);
      return rows.map(toTask).sort((a, b) => a.runAt - b.runAt);
    },
    async nextDueAt() {
      const { rows } = await db.query<{ pending: string | null; lease: string | null }>(
        "SELECT (SELECT MIN(run_at) FROM tasks WHERE status = 'pending') AS pending, " +
          "(SELECT MIN(lease_until) FROM tasks WHERE status = 'running') AS lease",
      );
      const times = [rows[0].pending, rows[0].lease].filter((at): at is string => at !== null).map(Number);
      return times.length === 0 ? undefined : Math.min(...times);
    },
    settle: (id, outcome, attempt) =>
      db.transaction(async (client) => {
        const { rows } = await client.query<{ integration: string }>(
          'UPDATE tasks SET status = $1, run_at = COALESCE($2, run_at), lease_until = NULL, last_status = $3, ' +
            "last_error = $4, updated_at = $5 WHERE id = $6 AND status = 'running' AND attempts = $7 RETURNING " +
            'integration',
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
          "DELETE FROM tasks WHERE integration = $1 AND status IN ('succeeded', 'failed') AND seq < (SELECT " +
            "seq FROM tasks WHERE integration = $1 AND status IN ('succeeded', 'failed') ORDER BY seq DESC " +
            'LIMIT 1 OFFSET $2)',
          [rows[0].integration, FINISHED_TASKS_KEPT - 1],
        );
      }),
    async list(integration, { limit, cursor }) {
      const before = cursor === undefined ? Number.MAX_SAFE_INTEGER : Number(cursor);
      const { rows } = await db.query<TaskRow>(
        'SELECT * FROM tasks WHERE integration = $1 AND seq < $2 ORDER BY seq DESC LIMIT $3',
        [integration, before, limit + 1],
      );
      const page = rows.slice(0, limit);
      return { items: page.map(toTask), nextCursor: rows.length > limit ? String(page[page.length - 1].seq) : null };
    },
  };
}

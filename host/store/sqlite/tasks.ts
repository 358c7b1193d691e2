// Integration tasks on node:sqlite (the TaskStore of tasks/): the queue with its due index, claims
// under a lease (so a task whose host died is taken again), and the newest finished tasks per
// integration (table: migrations.ts, version 4). Storage only: when to retry and what counts as
// failure is the runner's.

import type { DatabaseSync } from 'node:sqlite';
import { FINISHED_TASKS_KEPT, type TaskStore } from '../../tasks/model.ts';
import { inTransaction } from './transaction.ts';
import { toTask, type TaskRow } from '../task-rows.ts';
import { fairDueTasksQuery } from '../task-claim.ts';

export function createSqliteTaskStore(db: DatabaseSync): TaskStore {
  const statements = {
    waiting: db.prepare("SELECT COUNT(*) AS n FROM tasks WHERE integration = ? AND status IN ('pending', 'running')"),
    insert: db.prepare(
      'INSERT INTO tasks (id, integration, installation_id, event_id, payload, status, ' +
        "run_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 'pending', ?, ?, ?)",
    ),
    // One statement: pick in the fair order, claim, and return the claimed rows.
    claim: db.prepare(
      `WITH picked AS (${fairDueTasksQuery('?1', '?2')}) UPDATE tasks SET status = 'running', attempts = ` +
        `attempts + 1, lease_until = ?3, updated_at = ?1 WHERE seq IN (SELECT seq FROM picked) RETURNING *`,
    ),
    nextPending: db.prepare("SELECT MIN(run_at) AS at FROM tasks WHERE status = 'pending'"),
    nextLease: db.prepare("SELECT MIN(lease_until) AS at FROM tasks WHERE status = 'running'"),
    get: db.prepare('SELECT * FROM tasks WHERE id = ?'),
    settle: db.prepare(
      'UPDATE tasks SET status = ?, run_at = COALESCE(?, run_at), lease_until = NULL, last_status = ?, ' +
        "last_error = ?, updated_at = ? WHERE id = ? AND status = 'running' AND attempts = ? RETURNING " +
        'integration',
    ),
    prune: db.prepare(
      "DELETE FROM tasks WHERE integration = ? AND status IN ('succeeded', 'failed') AND seq < (SELECT seq " +
        "FROM tasks WHERE integration = ? AND status IN ('succeeded', 'failed') ORDER BY seq DESC LIMIT 1 " +
        'OFFSET ?)',
    ),
    page: db.prepare('SELECT * FROM tasks WHERE integration = ? AND seq < ? ORDER BY seq DESC LIMIT ?'),
  };
  return {
    async enqueue(task, maxPending) {
      return inTransaction(db, () => {
        if (Number((statements.waiting.get(task.integration) as { n: number }).n) >= maxPending) return false;
        statements.insert.run(
          task.id,
          task.integration,
          task.installationId ?? null,
          task.eventId,
          JSON.stringify(task.payload),
          task.runAt,
          task.createdAt,
          task.createdAt,
        );
        return true;
      });
    },
    async claimDue(now, leaseMs, limit) {
      const rows = statements.claim.all(now, limit, now + leaseMs) as unknown as TaskRow[];
      return rows.map(toTask).sort((a, b) => a.runAt - b.runAt);
    },
    async nextDueAt() {
      const pending = (statements.nextPending.get() as { at: number | null }).at;
      const lease = (statements.nextLease.get() as { at: number | null }).at;
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
        ) as { integration: string } | undefined;
        if (settled !== undefined && outcome.status !== 'pending')
          statements.prune.run(settled.integration, settled.integration, FINISHED_TASKS_KEPT - 1);
      });
    },
    async list(integration, { limit, cursor }) {
      const before = cursor === undefined ? Number.MAX_SAFE_INTEGER : Number(cursor);
      const rows = statements.page.all(integration, before, limit + 1) as unknown as TaskRow[];
      const page = rows.slice(0, limit);
      return { items: page.map(toTask), nextCursor: rows.length > limit ? String(page[page.length - 1].seq) : null };
    },
  };
}

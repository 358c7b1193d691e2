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
    insert: db.prepare("INSERT INTO tasks (id, integration, installation_id, event_id, payload, status, run_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 'pending', ?, ?, ?)"),
    due: db.prepare(fairDueTasksQuery('?1', '?2')),
    claim: db.prepare("UPDATE tasks SET status = 'running', attempts = attempts + 1, lease_until = ?, updated_at = ? WHERE seq = ?"),
    nextPending: db.prepare("SELECT MIN(run_at) AS at FROM tasks WHERE status = 'pending'"),
    nextLease: db.prepare("SELECT MIN(lease_until) AS at FROM tasks WHERE status = 'running'"),
    get: db.prepare('SELECT * FROM tasks WHERE id = ?'),
    bySeq: db.prepare('SELECT * FROM tasks WHERE seq = ?'),
    settle: db.prepare("UPDATE tasks SET status = ?, run_at = ?, lease_until = NULL, last_status = ?, last_error = ?, updated_at = ? WHERE id = ? AND status = 'running' AND attempts = ?"),
    prune: db.prepare(
      "DELETE FROM tasks WHERE integration = ? AND status IN ('succeeded', 'failed') AND seq < (SELECT seq FROM tasks WHERE integration = ? AND status IN ('succeeded', 'failed') ORDER BY seq DESC LIMIT 1 OFFSET ?)",
    ),
    page: db.prepare('SELECT * FROM tasks WHERE integration = ? AND seq < ? ORDER BY seq DESC LIMIT ?'),
  };
  return {
    async enqueue(task, maxPending) {
      return inTransaction(db, () => {
        if (Number((statements.waiting.get(task.integration) as { n: number }).n) >= maxPending) return false;
        statements.insert.run(task.id, task.integration, task.installationId ?? null, task.eventId, JSON.stringify(task.payload), task.runAt, task.createdAt, task.createdAt);
        return true;
      });
    },
    async claimDue(now, leaseMs, limit) {
      return inTransaction(db, () => {
        const picked = statements.due.all(now, limit) as unknown as { seq: number }[];
        for (const row of picked) statements.claim.run(now + leaseMs, now, row.seq);
        return picked.map((row) => toTask(statements.bySeq.get(row.seq) as unknown as TaskRow));
      });
    },
    async nextDueAt() {
      const pending = (statements.nextPending.get() as { at: number | null }).at;
      const lease = (statements.nextLease.get() as { at: number | null }).at;
      const times = [pending, lease].filter((at): at is number => at !== null);
      return times.length === 0 ? undefined : Math.min(...times);
    },
    async settle(id, outcome, attempt) {
      inTransaction(db, () => {
        const row = statements.get.get(id) as TaskRow | undefined;
        if (row === undefined) return;
        const runAt = outcome.status === 'pending' ? outcome.runAt : row.run_at;
        const settled = Number(statements.settle.run(outcome.status, runAt, attempt.lastStatus, attempt.lastError ?? null, attempt.now, id, attempt.number).changes) === 1;
        if (settled && outcome.status !== 'pending') statements.prune.run(row.integration, row.integration, FINISHED_TASKS_KEPT - 1);
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

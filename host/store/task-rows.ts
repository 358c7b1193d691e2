// The tasks table's rows and the mapping from a row to a TaskRecord (shared by both stores).
// Pure data and conversion; the two task stores are its only users.

import type { TaskRecord } from '../tasks/model.ts';

/** A row of `tasks`; integer columns arrive as numbers from SQLite and as strings (BIGINT) from PostgreSQL. */
export interface TaskRow {
  seq: number | string;
  id: string;
  integration: string;
  installation_id: string | null;
  event_id: string;
  payload: string;
  status: TaskRecord['status'];
  attempts: number;
  run_at: number | string;
  lease_until: number | string | null;
  last_status: number | null;
  last_error: string | null;
  created_at: number | string;
  updated_at: number | string;
}

export function toTask(row: TaskRow): TaskRecord {
  return {
    id: row.id,
    integration: row.integration,
    ...(row.installation_id !== null ? { installationId: row.installation_id } : {}),
    eventId: row.event_id,
    payload: JSON.parse(row.payload) as Record<string, unknown>,
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

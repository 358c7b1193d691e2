// The event log's rows and the mapping from a row to an entry (shared by both stores).
// Pure data and conversion; the two event-log stores are its only users.

import type { EventLogEntry } from '../dispatch/event-log.ts';

export interface EventLogRow {
  seq: number;
  event_id: string;
  integration: string;
  installation_id: string;
  type: string;
  status: number;
  error_code: string | null;
  duration_ms: number;
  logs: string;
  created_at: string;
  request_id: string | null;
  version: number | string | null;
}

export function toEntry(row: EventLogRow): EventLogEntry {
  return {
    eventId: row.event_id,
    integration: row.integration,
    installationId: row.installation_id,
    type: row.type,
    status: row.status,
    ...(row.error_code ? { errorCode: row.error_code } : {}),
    durationMs: row.duration_ms,
    logs: JSON.parse(row.logs) as EventLogEntry['logs'],
    createdAt: row.created_at,
    ...(row.request_id ? { requestId: row.request_id } : {}),
    ...(row.version !== null && row.version !== undefined ? { version: Number(row.version) } : {}),
  };
}

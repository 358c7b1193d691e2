// An owed event as the admin sees it (GET /v1/installations/:id/owed-events): its state, attempts
// and last outcome, never the event's body (it may carry configuration values). Pure.

import type { OwedEventRecord, OwedEventStatus } from './model.ts';

export interface OwedEventView {
  eventId: string;
  type: string;
  status: OwedEventStatus;
  attempts: number;
  /** Pending: when the next attempt may start. */
  nextAttemptAt?: string;
  /** Running: when its host is presumed dead and another may take it over. */
  leaseUntil?: string;
  lastStatus?: number;
  lastError?: string;
  createdAt: string;
  updatedAt: string;
}

export function viewOwedEvent(record: OwedEventRecord): OwedEventView {
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    eventId: record.id,
    type: record.event.type,
    status: record.status,
    attempts: record.attempts,
    ...(record.status === 'pending' ? { nextAttemptAt: iso(record.runAt) } : {}),
    ...(record.status === 'running' && record.leaseUntil !== undefined ? { leaseUntil: iso(record.leaseUntil) } : {}),
    ...(record.lastStatus !== undefined ? { lastStatus: record.lastStatus } : {}),
    ...(record.lastError !== undefined ? { lastError: record.lastError } : {}),
    createdAt: iso(record.createdAt),
    updatedAt: iso(record.updatedAt),
  };
}

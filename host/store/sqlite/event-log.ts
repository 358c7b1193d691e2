// The event log on node:sqlite: one row per dispatch, written in batches, pruned per integration.
// Records what happened; it never decides what to dispatch and never stores event payloads.

import type { DatabaseSync } from 'node:sqlite';
import type { EventLog, EventLogEntry } from '../../dispatch/event-log.ts';
import { toEntry, type EventLogRow } from '../event-log-rows.ts';
import { decodeSeqCursor, encodeSeqCursor } from '../seq-cursor.ts';

// Bounded so a chatty integration cannot grow the database without limit.
const MAX_ENTRIES_PER_INTEGRATION = 5_000;
const PRUNE_EVERY = 100;
const MAX_BATCH = 500;
/**
 * How long an entry may wait for its batch. One transaction per turn of the event loop still cost a
 * transaction per request at low concurrency; a short window bounds what a killed host loses
 * (the log is a diagnostic) while busy hosts write hundreds of rows per transaction.
 */
const FLUSH_AFTER_MS = 50;

export function createSqliteEventLog(db: DatabaseSync): EventLog {
  const statements = {
    insert: db.prepare(
      'INSERT INTO event_log (event_id, integration, installation_id, type, status, error_code, ' +
        'duration_ms, logs, created_at, request_id, version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    ),
    prune: db.prepare(
      'DELETE FROM event_log WHERE integration = ? AND seq <= (SELECT seq FROM ' +
        'event_log WHERE integration = ? ORDER BY seq DESC LIMIT 1 OFFSET ?)',
    ),
    page: db.prepare('SELECT * FROM event_log WHERE integration = ? AND seq < ? ORDER BY seq DESC LIMIT ?'),
    // Event ids are not indexed (migration 7: a random key cost every row's write far more than
    // this admin read gains): it walks the integration's rows, at most MAX_ENTRIES_PER_INTEGRATION + PRUNE_EVERY.
    get: db.prepare('SELECT * FROM event_log WHERE integration = ? AND event_id = ? ORDER BY seq LIMIT 1'),
  };
  // Entries are written in batches, one transaction per FLUSH_AFTER_MS window (or MAX_BATCH rows),
  // so the log costs the dispatch path an array push instead of a SQLite write. Reads flush first.
  let pending: EventLogEntry[] = [];
  let flushTimer: NodeJS.Timeout | null = null;
  const insertsSincePrune = new Map<string, number>();
  const flush = (): void => {
    if (flushTimer !== null) clearTimeout(flushTimer);
    flushTimer = null;
    if (pending.length === 0) return;
    const batch = pending;
    pending = [];
    db.exec('BEGIN');
    try {
      for (const {
        eventId,
        integration,
        installationId,
        type,
        status,
        errorCode,
        durationMs,
        logs,
        createdAt,
        requestId,
        version,
      } of batch) {
        statements.insert.run(
          eventId,
          integration,
          installationId,
          type,
          status,
          errorCode ?? null,
          Math.round(durationMs),
          JSON.stringify(logs),
          createdAt,
          requestId ?? null,
          version ?? null,
        );
        insertsSincePrune.set(integration, (insertsSincePrune.get(integration) ?? 0) + 1);
      }
      // Pruning scans an integration's rows; doing it every PRUNE_EVERY inserts keeps it cheap
      // while the log stays within MAX_ENTRIES_PER_INTEGRATION + PRUNE_EVERY rows.
      for (const [integration, count] of insertsSincePrune) {
        if (count < PRUNE_EVERY) continue;
        statements.prune.run(integration, integration, MAX_ENTRIES_PER_INTEGRATION);
        insertsSincePrune.set(integration, 0);
      }
      db.exec('COMMIT');
    } catch (error) {
      try {
        db.exec('ROLLBACK');
      } catch {
        // The transaction may already be gone; the original error is the one worth reporting.
      }
      // Nothing is lost on a failed write: the batch goes back in front of what came since.
      pending = [...batch, ...pending];
      throw error;
    }
  };
  const scheduleFlush = (): void => {
    if (flushTimer !== null) return;
    flushTimer = setTimeout(() => {
      try {
        flush();
      } catch {
        // The log is a diagnostic: a failing write (full disk) must not take the host down.
      }
    }, FLUSH_AFTER_MS);
    // Closing the store flushes; a pending batch alone must not keep the process alive.
    flushTimer.unref();
  };
  return {
    record(entry) {
      pending.push(entry);
      if (pending.length >= MAX_BATCH) {
        try {
          flush();
        } catch {
          // Kept in `pending` (see flush); the next flush tries again.
          scheduleFlush();
        }
      } else scheduleFlush();
    },
    flush: async () => flush(),
    async list(integration, { limit, cursor }) {
      flush();
      const before = cursor === undefined ? Number.MAX_SAFE_INTEGER : decodeSeqCursor(cursor);
      // One row more than asked tells whether another page exists.
      const rows = statements.page.all(integration, before, limit + 1) as unknown as EventLogRow[];
      const items = rows.slice(0, limit);
      const nextCursor = rows.length > limit ? encodeSeqCursor(items[items.length - 1].seq) : null;
      return { items: items.map(toEntry), nextCursor };
    },
    async get(integration, eventId) {
      flush();
      const row = statements.get.get(integration, eventId) as EventLogRow | undefined;
      return row ? toEntry(row) : undefined;
    },
  };
}

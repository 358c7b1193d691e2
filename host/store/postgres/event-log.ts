// The event log on PostgreSQL: entries are buffered and written in batches (one multi-row INSERT
// per 50 ms window, never two at once), pruned per integration. A failed write keeps
// its batch for the next try (bounded, oldest dropped with a warning), so a database blip loses
// no entry. Reads flush first, so a host always sees its own entries.

import type { EventLog, EventLogEntry } from '../../dispatch/event-log.ts';
import type { Db } from './connection.ts';
import { toEntry, type EventLogRow } from '../event-log-rows.ts';
import { decodeSeqCursor, encodeSeqCursor } from '../seq-cursor.ts';

const MAX_ENTRIES_PER_INTEGRATION = 5_000;
const PRUNE_EVERY = 100;
const MAX_BATCH = 500;
/** How long an entry may wait for its batch: a window, not a turn, so a quiet host does not write once per request. */
const FLUSH_AFTER_MS = 50;
/** Entries kept while the database is unreachable; past this the oldest are dropped. */
const MAX_PENDING = 20_000;

const INSERT = `INSERT INTO event_log (event_id, integration, installation_id, type, status, error_code, duration_ms,
  logs, created_at, request_id, version)
  SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int[], $6::text[], $7::int[], $8::text[],
    $9::text[], $10::text[], $11::int[])`;

export function createPostgresEventLog(db: Db, log?: { warn(message: string): void }): EventLog {
  let pending: EventLogEntry[] = [];
  let writing: Promise<void> | null = null;
  let scheduled = false;
  const insertsSincePrune = new Map<string, number>();

  async function writeOnce(): Promise<void> {
    while (pending.length > 0) {
      const batch = pending.splice(0, MAX_BATCH);
      const columns: unknown[][] = Array.from({ length: 11 }, () => []);
      for (const entry of batch) {
        const values = [
          entry.eventId,
          entry.integration,
          entry.installationId,
          entry.type,
          entry.status,
          entry.errorCode ?? null,
          Math.round(entry.durationMs),
          JSON.stringify(entry.logs),
          entry.createdAt,
          entry.requestId ?? null,
          entry.version ?? null,
        ];
        values.forEach((value, index) => columns[index].push(value));
      }
      try {
        await db.query(INSERT, columns);
      } catch (error) {
        // Nothing is lost on a failed write: the batch goes back in front of what came since.
        pending = [...batch, ...pending];
        throw error;
      }
      for (const entry of batch)
        insertsSincePrune.set(entry.integration, (insertsSincePrune.get(entry.integration) ?? 0) + 1);
      for (const [integration, count] of insertsSincePrune) {
        if (count < PRUNE_EVERY) continue;
        insertsSincePrune.set(integration, 0);
        await db.query(
          'DELETE FROM event_log WHERE integration = $1 AND seq <= (SELECT seq FROM ' +
            'event_log WHERE integration = $1 ORDER BY seq DESC LIMIT 1 OFFSET $2)',
          [integration, MAX_ENTRIES_PER_INTEGRATION],
        );
      }
    }
  }

  function flush(): Promise<void> {
    if (writing === null) writing = writeOnce().finally(() => (writing = null));
    return writing;
  }

  const schedule = (): void => {
    if (scheduled) return;
    scheduled = true;
    // One write per FLUSH_AFTER_MS window (as on SQLite), not one per turn of the event loop.
    setTimeout(() => {
      scheduled = false;
      flush().catch((error: unknown) => {
        // The log is a diagnostic: the entries stay queued and the next record or read retries.
        log?.warn(`event log: could not write ${pending.length} entr(ies): ${(error as Error).message}`);
      });
    }, FLUSH_AFTER_MS).unref();
  };

  return {
    record(entry) {
      pending.push(entry);
      if (pending.length > MAX_PENDING) {
        const dropped = pending.length - MAX_PENDING;
        pending = pending.slice(dropped);
        log?.warn(`event log: dropped the ${dropped} oldest unwritten entr(ies) while the database was unreachable`);
      }
      schedule();
    },
    async flush() {
      // A write in progress may have started before the newest entries arrived: wait, then write the rest.
      while (writing !== null || pending.length > 0) await flush();
    },
    async list(integration, { limit, cursor }) {
      const before = cursor === undefined ? Number.MAX_SAFE_INTEGER : decodeSeqCursor(cursor);
      await this.flush();
      const { rows } = await db.query<EventLogRow>(
        'SELECT * FROM event_log WHERE integration = $1 AND seq < $2 ORDER BY seq DESC LIMIT $3',
        [integration, before, limit + 1],
      );
      const items = rows.slice(0, limit);
      return {
        items: items.map(toEntry),
        nextCursor: rows.length > limit ? encodeSeqCursor(items[items.length - 1].seq) : null,
      };
    },
    async get(integration, eventId) {
      await this.flush();
      const { rows } = await db.query<EventLogRow>(
        'SELECT * FROM event_log WHERE integration = $1 AND event_id = $2 ORDER BY seq LIMIT 1',
        [integration, eventId],
      );
      return rows[0] === undefined ? undefined : toEntry(rows[0]);
    },
  };
}

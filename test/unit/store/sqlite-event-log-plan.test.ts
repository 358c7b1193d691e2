// The SQLite event log's writes stay cheap: a row (one per dispatch) maintains the table and the
// (integration, seq) index only, never an index keyed by the random event id; the one read by event
// id walks that integration's rows in order and still answers the first dispatch of the id.
// Checked on SQLite's own schema and plans, so no timing is involved.
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../../host/store/sqlite/database.ts';
import { createSqliteEventLog } from '../../../host/store/sqlite/event-log.ts';
import type { EventLogEntry } from '../../../host/dispatch/event-log.ts';

const entry = (eventId: string, status: number, integration = 'hello'): EventLogEntry => ({
  eventId,
  integration,
  installationId: 'inst_1',
  type: 'fetch',
  status,
  durationMs: 1,
  logs: [],
  createdAt: '2026-11-23T11:00:00.000Z',
});

describe('SQLite event log statements', () => {
  it('indexes event_log by (integration, seq) only', () => {
    const db = openDatabase(':memory:');
    const indexes = db
      .prepare(
        "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'event_log' AND sql IS NOT NULL",
      )
      .all() as { name: string; sql: string }[];
    expect(indexes.map((index) => index.name)).toEqual(['event_log_by_integration']);
    expect(indexes[0].sql).toMatch(/\(integration, seq\)/);
    db.close();
  });

  it('reads an event by id through the integration index, first dispatch of the id first', async () => {
    const db = openDatabase(':memory:');
    const plan = (
      db
        .prepare(
          'EXPLAIN QUERY PLAN SELECT * FROM event_log WHERE integration = ? AND event_id = ? ORDER BY seq LIMIT 1',
        )
        .all('hello', 'evt_1') as { detail: string }[]
    ).map((row) => row.detail);
    expect(plan).toContainEqual(expect.stringContaining('USING INDEX event_log_by_integration (integration=?)'));
    expect(plan.some((detail) => detail.includes('TEMP B-TREE'))).toBe(false);
    const log = createSqliteEventLog(db);
    log.record(entry('evt_1', 200));
    log.record(entry('evt_1', 500, 'other'));
    log.record(entry('evt_2', 201));
    log.record(entry('evt_1', 404));
    expect(await log.get('hello', 'evt_1')).toMatchObject({ eventId: 'evt_1', status: 200 });
    expect(await log.get('other', 'evt_1')).toMatchObject({ eventId: 'evt_1', status: 500 });
    expect(await log.get('other', 'evt_2')).toBeUndefined();
    db.close();
  });
});

// The SQLite outbox's hot statements stay cheap as the backlog grows: a claim marks its rows by
// rowid instead of walking every pending row of the due index, and the next due time is read in
// index order, stopping at the first row outside the busy endpoints (no aggregate over them all).
// Checked on SQLite's own plans (EXPLAIN), so no timing is involved.
import { describe, expect, it } from 'vitest';
import type { DatabaseSync } from 'node:sqlite';
import { openDatabase } from '../../../host/store/sqlite/database.ts';
import { createOutbox } from '../../../host/store/sqlite/outbox.ts';

/** The SQL text of every statement the outbox prepares. */
function outboxStatements(db: DatabaseSync): string[] {
  const texts: string[] = [];
  const prepare = db.prepare.bind(db);
  db.prepare = (sql: string) => (texts.push(sql), prepare(sql));
  createOutbox(db);
  db.prepare = prepare;
  return texts;
}

const plan = (db: DatabaseSync, sql: string, ...params: (string | number)[]) =>
  (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((row) => row.detail);
const opcodes = (db: DatabaseSync, sql: string, ...params: (string | number)[]) =>
  (db.prepare(`EXPLAIN ${sql}`).all(...params) as { opcode: string }[]).map((row) => row.opcode);

describe('SQLite outbox statements', () => {
  const db = openDatabase(':memory:');
  const statements = outboxStatements(db);
  const find = (pattern: RegExp) => {
    const found = statements.filter((sql) => pattern.test(sql));
    expect(found).toHaveLength(1);
    return found[0];
  };

  it('marks claimed deliveries through their rowid, not by walking the pending rows', () => {
    const claim = find(/SET status = 'in_flight'/);
    expect(plan(db, claim, '[1,2]')).toContainEqual(expect.stringContaining('USING INTEGER PRIMARY KEY (rowid=?)'));
  });

  it('reads the next due time in index order and stops at the first row it may use', () => {
    const nextDue = find(/AS due FROM webhook_deliveries/);
    const details = plan(db, nextDue, '[]');
    expect(details).toContainEqual(expect.stringContaining('USING INDEX webhook_deliveries_due'));
    expect(details.some((detail) => detail.includes('TEMP B-TREE'))).toBe(false);
    expect(opcodes(db, nextDue, '[]')).not.toContain('AggStep');
  });
});

// Migration 8 rebuilds the outbox's tables (no AUTOINCREMENT, attempts WITHOUT ROWID): a database
// with deliveries and attempts written before it keeps every row, its order and its links.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, describe, expect, it } from 'vitest';
import { migrateSqlite, SQLITE_MIGRATIONS } from '../../../host/store/sqlite/migrations.ts';
import { createOutbox } from '../../../host/store/sqlite/outbox.ts';

let dir = '';
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The migrations up to `version`: later ones are not this test's business. */
const upTo = (version: number) => SQLITE_MIGRATIONS.filter((migration) => migration.version <= version);

function openAt(version: number): DatabaseSync {
  dir = mkdtempSync(path.join(tmpdir(), 'outbox-migrate-'));
  const db = new DatabaseSync(path.join(dir, 'host.db'));
  db.exec('PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON;');
  migrateSqlite(db, upTo(version));
  return db;
}

const delivery = (n: number) => ({
  installationId: 'inst_a',
  eventId: `evt_${n}`,
  eventType: 'space_content_updated',
  url: 'http://127.0.0.1:9/hook',
  body: `{"n":${n}}`,
});

/** One delivery, enqueued and answered 200 at its first attempt, under the given id. */
async function deliveredOnce(db: DatabaseSync, id: string): Promise<void> {
  const outbox = createOutbox(db, { newId: () => id });
  await outbox.enqueue([delivery(1)], 1_000);
  await outbox.recordAttempts([
    {
      deliveryId: id,
      attempt: {
        attempt: 1,
        startedAt: 1_000,
        durationMs: 3,
        statusCode: 200,
        errorKind: null,
        errorMessage: null,
        nextAttemptAt: null,
      },
      next: { status: 'succeeded' },
    },
  ]);
}

describe('sqlite outbox migration (version 8)', () => {
  it('keeps deliveries, their attempts and their order, and new rows follow the largest seq', async () => {
    const db = openAt(7);
    let ids = 0;
    const before = createOutbox(db, { newId: () => `whd_${++ids}` });
    await before.enqueue([delivery(1)], 1_000);
    await before.enqueue([delivery(2), delivery(3)], 2_000);
    const [claimed] = await before.claimDue(5_000, { limit: 1, perEndpoint: 8, room: new Map(), leaseMs: 30_000 });
    await before.recordAttempts([
      {
        deliveryId: claimed.id,
        attempt: {
          attempt: 1,
          startedAt: 5_000,
          durationMs: 12,
          statusCode: 500,
          errorKind: null,
          errorMessage: null,
          nextAttemptAt: 65_000,
        },
        next: { status: 'pending', nextAttemptAt: 65_000 },
      },
    ]);
    // A gap in seq (an operator deleted a finished delivery) must survive: rows keep their numbers.
    await before.enqueue([delivery(9)], 2_500);
    db.exec("DELETE FROM webhook_deliveries WHERE event_id = 'evt_2'");
    const listedBefore = await before.listForInstallation('inst_a');
    const numbersBefore = db.prepare('SELECT seq, id FROM webhook_deliveries ORDER BY seq').all();
    expect(numbersBefore.map((row) => (row as { seq: number }).seq)).toEqual([1, 3, 4]);

    expect(migrateSqlite(db, upTo(8))).toEqual([8]);
    expect(db.prepare('SELECT seq, id FROM webhook_deliveries ORDER BY seq').all()).toEqual(numbersBefore);
    const after = createOutbox(db, { newId: () => `whd_${++ids}` });
    expect(await after.listForInstallation('inst_a')).toEqual(listedBefore);
    expect((await after.get(claimed.id))?.attemptLog).toEqual([
      expect.objectContaining({ attempt: 1, statusCode: 500, nextAttemptAt: 65_000 }),
    ]);
    expect(db.prepare('PRAGMA foreign_key_check').all()).toEqual([]);

    // Newest first: a row enqueued after the migration lists before every older one.
    await after.enqueue([delivery(4)], 3_000);
    expect((await after.listForInstallation('inst_a')).items.map((item) => item.eventId)).toEqual([
      'evt_4',
      'evt_9',
      'evt_3',
      'evt_1',
    ]);
    db.close();
  });

  it(
    'leaves behind attempts whose delivery was deleted with ' + 'foreign keys off, instead of failing the start',
    async () => {
      const db = openAt(7);
      await deliveredOnce(db, 'whd_gone');
      // As the sqlite3 shell does by default: no foreign keys, so the attempt stays behind.
      db.exec('PRAGMA foreign_keys = OFF');
      db.exec("DELETE FROM webhook_deliveries WHERE id = 'whd_gone'");
      db.exec('PRAGMA foreign_keys = ON');
      expect(db.prepare('SELECT COUNT(*) AS n FROM webhook_attempts').get()).toEqual({ n: 1 });

      expect(migrateSqlite(db, upTo(8))).toEqual([8]);
      expect(db.prepare('SELECT COUNT(*) AS n FROM webhook_attempts').get()).toEqual({ n: 0 });
      expect(db.prepare('PRAGMA foreign_key_check').all()).toEqual([]);
      db.close();
    },
  );

  it(
    'leaves no AUTOINCREMENT counter, keeps attempts in their ' + 'key and still deletes them with their delivery',
    async () => {
      const db = openAt(8);
      await deliveredOnce(db, 'whd_only');
      const tables = db
        .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name LIKE 'webhook_%'")
        .all() as { name: string; sql: string }[];
      expect(tables.find((table) => table.name === 'webhook_deliveries')?.sql).not.toMatch(/AUTOINCREMENT/);
      expect(tables.find((table) => table.name === 'webhook_attempts')?.sql).toMatch(/WITHOUT ROWID$/);
      expect(db.prepare("SELECT COUNT(*) AS n FROM sqlite_master WHERE name = 'sqlite_sequence'").get()).toEqual({
        n: 1,
      }); // other tables keep theirs
      expect(db.prepare("SELECT name FROM sqlite_sequence WHERE name LIKE 'webhook_%'").all()).toEqual([]);
      expect(
        db
          .prepare(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'webhook_deliveries' AND sql IS NOT " +
              'NULL ORDER BY name',
          )
          .all()
          .map((row) => (row as { name: string }).name),
      ).toEqual(['webhook_deliveries_by_installation', 'webhook_deliveries_due']);

      db.exec("DELETE FROM webhook_deliveries WHERE id = 'whd_only'");
      expect(db.prepare('SELECT COUNT(*) AS n FROM webhook_attempts').get()).toEqual({ n: 0 });
      db.close();
    },
  );
});

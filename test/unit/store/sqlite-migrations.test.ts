// SQLite migrations: a database made by a release before migrations existed (tables, no
// schema_migrations) adopts version 1 and keeps its rows, gets the later versions; opening again applies nothing.
import { mkdtempSync, rmSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { migrateSqlite, SQLITE_MIGRATIONS } from '../../../host/store/sqlite/migrations.ts';
import { openSqliteStores } from '../../../host/store/sqlite/open.ts';

let dir = '';
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('sqlite migrations', () => {
  it('adopts a pre-migration database as version 1 with its rows, and applies nothing twice', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'sqlite-migrate-'));
    const file = path.join(dir, 'host.db');
    const old = new DatabaseSync(file);
    old.exec(SQLITE_MIGRATIONS[0].sql);
    old.exec("INSERT INTO meta (key, value) VALUES ('token-secret', 'kept')");
    old.close();

    const stores = openSqliteStores(file);
    expect(await stores.meta.get('token-secret')).toBe('kept');
    await stores.close();
    const db = new DatabaseSync(file);
    expect(db.prepare('SELECT version FROM schema_migrations ORDER BY version').all()).toEqual(
      SQLITE_MIGRATIONS.map(({ version }) => ({ version })),
    );
    expect(migrateSqlite(db)).toEqual([]);
    db.close();
  });
});

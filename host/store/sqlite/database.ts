// Opens the host's node:sqlite database file with its pragmas and current schema. The only place
// that creates a DatabaseSync; every sqlite store takes the handle it returns.

import { DatabaseSync } from 'node:sqlite';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { migrateSqlite } from './migrations.ts';

/**
 * Opens (creating if needed) the database at `path` with the host's pragmas and brings its schema
 * up to date (migrations.ts); `:memory:` gives a throwaway one.
 */
export function openDatabase(path: string): DatabaseSync {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new DatabaseSync(path);
  try {
    // WAL with synchronous=NORMAL survives a killed process (kill -9) and avoids an fsync per commit;
    // only a power loss can drop the last commits.
    db.exec(
      'PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000;',
    );
    migrateSqlite(db);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

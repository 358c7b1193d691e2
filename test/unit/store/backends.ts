// The two store implementations behind one test harness, so every contract test runs against
// SQLite and PostgreSQL alike. Each test gets a fresh, empty database; `open()` called twice on it
// gives two hosts' stores over the same data (meaningful for the shared store only).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { createMemoryLogger } from '../../../host/common/logger.ts';
import { openDb } from '../../../host/store/postgres/connection.ts';
import { migratePostgres } from '../../../host/store/postgres/migrations.ts';
import { openPostgresStores } from '../../../host/store/postgres/open.ts';
import { createPostgresOutbox } from '../../../host/store/postgres/outbox.ts';
import { openDatabase } from '../../../host/store/sqlite/database.ts';
import { createOutbox } from '../../../host/store/sqlite/outbox.ts';
import { openSqliteStores } from '../../../host/store/sqlite/open.ts';
import type { HostStores } from '../../../host/store/types.ts';
import type { Outbox } from '../../../host/webhooks/outbox.ts';
import { postgresUnavailable, startPostgres, type TestPostgres } from '../../helpers/postgres.ts';

export interface Database {
  /** The stores of one host on this database (closed by close()). */
  open(): Promise<HostStores>;
  /** Rows of a plain SQL query without parameters, for checks no store method answers. */
  rows(sql: string): Promise<Record<string, unknown>[]>;
  /** An outbox alone, with deterministic ids. */
  outbox(newId?: () => string): Promise<Outbox>;
  close(): Promise<void>;
}

export interface Backend {
  name: 'sqlite' | 'postgres';
  /** Why this backend cannot run here (its tests are skipped), or undefined. */
  skip: string | undefined;
  fresh(): Promise<Database>;
}

let server: TestPostgres | undefined;

const sqlite: Backend = {
  name: 'sqlite',
  skip: undefined,
  async fresh() {
    const dir = mkdtempSync(path.join(tmpdir(), 'store-contract-'));
    const file = path.join(dir, 'host.db');
    const closers: (() => unknown)[] = [];
    return {
      async open() {
        const stores = openSqliteStores(file);
        closers.push(() => stores.close());
        return stores;
      },
      async rows(sql) {
        const db = openDatabase(file);
        try {
          return db.prepare(sql).all() as Record<string, unknown>[];
        } finally {
          db.close();
        }
      },
      async outbox(newId) {
        const db = openDatabase(file);
        closers.push(() => db.close());
        return createOutbox(db, newId ? { newId } : {});
      },
      async close() {
        for (const close of closers.reverse()) await close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
};

const postgres: Backend = {
  name: 'postgres',
  skip: postgresUnavailable,
  async fresh() {
    if (server === undefined) throw new Error('PostgreSQL was not started (useBackends() in this file?)');
    const url = await server.createDatabase();
    const closers: (() => unknown)[] = [];
    return {
      async open() {
        const stores = await openPostgresStores(url, { log: createMemoryLogger(), retryForMs: 2_000 });
        closers.push(() => stores.close());
        return stores;
      },
      async rows(sql) {
        const db = await openDb(url);
        try {
          return (await db.query(sql)).rows;
        } finally {
          await db.close();
        }
      },
      async outbox(newId) {
        const db = await openDb(url);
        closers.push(() => db.close());
        await migratePostgres(db);
        return createPostgresOutbox(db, newId ? { newId } : {});
      },
      async close() {
        for (const close of closers.reverse()) await close();
      },
    };
  },
};

/** Both backends; starts (and stops) one throwaway PostgreSQL for the calling file when it can run. */
export function useBackends(): Backend[] {
  beforeAll(async () => {
    if (postgresUnavailable === undefined) server = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    server = undefined;
  });
  return [sqlite, postgres];
}

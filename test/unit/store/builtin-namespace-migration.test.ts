// The migration that moved the built-in webhook into the built-ins' namespace, on SQLite and
// PostgreSQL: a store written when the built-in was called `webhook` keeps its installations
// (ids, tokens, configuration) under `host:webhook`, other integrations' rows are untouched, and
// a `webhook` installation made afterwards (an author's integration) is never renamed.
import { mkdtempSync, rmSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../../host/common/logger.ts';
import { openDb } from '../../../host/store/postgres/connection.ts';
import { migratePostgres, POSTGRES_MIGRATIONS } from '../../../host/store/postgres/migrations.ts';
import { openPostgresStores } from '../../../host/store/postgres/open.ts';
import { migrateSqlite, SQLITE_MIGRATIONS, type Migration } from '../../../host/store/sqlite/migrations.ts';
import { openSqliteStores } from '../../../host/store/sqlite/open.ts';
import type { HostStores } from '../../../host/store/types.ts';
import { postgresUnavailable, startPostgres, type TestPostgres } from '../../helpers/postgres.ts';

const NAMESPACE_MIGRATION = 'built-in integrations in their namespace';
const before = (migrations: readonly Migration[]) =>
  migrations.filter((migration) => migration.name !== NAMESPACE_MIGRATION);

const OLD_ROWS = `
  INSERT INTO installations (id, integration, organization, target, space, site, status, configuration, space_selection,
    created_at, external_ids, updated_at)
  VALUES ('inst_hook', 'webhook', 'acme', 'space', 'space_1', NULL, 'active',
    '{"url":"https://receiver.example/","events":["space_content_updated"]}', NULL, '2026-01-01T00:00:00.000Z', '[]',
    '2026-01-01T00:00:00.000Z'),
         ('inst_hello', 'hello', 'acme', 'organization', NULL, NULL, 'active', '{}', NULL, '2026-01-01T00:00:01.000Z',
           '[]', '2026-01-01T00:00:01.000Z');
  INSERT INTO tokens (token_hash, installation_id) VALUES ('hash_hook', 'inst_hook');
`;

/** What the store says after the upgrade, then after an author's `webhook` is installed and the store reopened. */
async function expectMigrated(open: () => Promise<HostStores>): Promise<void> {
  const stores = await open();
  const hook = await stores.installations.getInstallation('inst_hook');
  expect(hook).toMatchObject({
    integration: 'host:webhook',
    status: 'active',
    configuration: { url: 'https://receiver.example/', events: ['space_content_updated'] },
  });
  expect(await stores.installations.findTokenOwner('hash_hook')).toBe('inst_hook');
  expect((await stores.installations.getInstallation('inst_hello'))?.integration).toBe('hello');
  expect((await stores.installations.listInstallations({ integration: 'webhook' })).map((row) => row.id)).toEqual([]);
  await stores.installations.insertInstallation(
    {
      id: 'inst_author',
      integration: 'webhook',
      organization: 'acme',
      target: 'organization',
      status: 'active',
      configuration: {},
      externalIds: [],
      spaceSelection: 'all',
      createdAt: '2026-01-02T00:00:00.000Z',
      updatedAt: '2026-01-02T00:00:00.000Z',
    },
    'hash_author',
  );
  await stores.close();
  const again = await open();
  expect((await again.installations.listInstallations({ integration: 'webhook' })).map((row) => row.id)).toEqual([
    'inst_author',
  ]);
  expect((await again.installations.listInstallations({ integration: 'host:webhook' })).map((row) => row.id)).toEqual([
    'inst_hook',
  ]);
  await again.close();
}

describe("the built-ins' namespace migration", () => {
  it('on SQLite moves the old `webhook` installations to `host:webhook` once', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'builtin-namespace-'));
    try {
      const file = path.join(dir, 'host.db');
      const old = new DatabaseSync(file);
      migrateSqlite(old, before(SQLITE_MIGRATIONS));
      old.exec(OLD_ROWS);
      old.close();
      await expectMigrated(async () => openSqliteStores(file));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('on PostgreSQL', () => {
    let server: TestPostgres | undefined;
    beforeAll(async () => {
      if (postgresUnavailable === undefined) server = await startPostgres();
    }, 60_000);
    afterAll(async () => {
      await server?.stop();
    });

    it.skipIf(postgresUnavailable !== undefined)(
      'moves the old `webhook` installations to `host:webhook` once',
      async () => {
        const url = await server!.createDatabase();
        const old = await openDb(url);
        await migratePostgres(old, before(POSTGRES_MIGRATIONS));
        await old.query(OLD_ROWS);
        await old.close();
        await expectMigrated(() => openPostgresStores(url, { log: createMemoryLogger(), retryForMs: 2_000 }));
      },
    );
  });
});

// The installation hierarchy in the SQLite store: a store written before it keeps every row and
// gains the new columns; children go under the earliest organization installation of their
// integration in their organization (or a new one), in one transaction; orphans are adopted; an
// organization installation removed takes its children and their tokens with it.
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { openDatabase } from '../../../host/store/sqlite/database.ts';
import { createSqliteInstallationStore } from '../../../host/store/sqlite/installations.ts';
import type { Installation } from '../../../host/installations/model.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDb(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ih-hierarchy-'));
  dirs.push(dir);
  return join(dir, 'host.db');
}

const at = (n: number) => `2026-01-0${n}T00:00:00.000Z`;
const org = (id: string, created: number, integration = 'hello'): Installation => ({
  id,
  integration,
  organization: 'acme',
  target: 'organization',
  status: 'active',
  configuration: {},
  spaceSelection: 'all',
  createdAt: at(created),
});
const space = (id: string, spaceId: string, created: number): Installation => ({
  id,
  integration: 'hello',
  organization: 'acme',
  target: 'space',
  space: spaceId,
  status: 'pending',
  configuration: { a: 1 },
  createdAt: at(created),
});

describe('the SQLite installation store and the hierarchy', () => {
  it('keeps the rows of a store written before the hierarchy and adds its columns', async () => {
    const path = tempDb();
    const old = new DatabaseSync(path);
    // The schema every earlier release created, with one space installation and its token.
    old.exec(`
      CREATE TABLE installations (
        id TEXT PRIMARY KEY, integration TEXT NOT NULL, organization TEXT NOT NULL, target TEXT NOT NULL,
        space TEXT, site TEXT, status TEXT NOT NULL, configuration TEXT NOT NULL, space_selection TEXT, created_at TEXT
          NOT NULL
      );
      CREATE TABLE tokens (token_hash TEXT PRIMARY KEY, installation_id TEXT NOT NULL REFERENCES installations (id) ON
        DELETE CASCADE);
      INSERT INTO installations VALUES ('inst_old', 'hello', 'acme', 'space', 'space_1', NULL, 'active',
        '{"channel":"general"}', NULL, '${at(1)}');
      INSERT INTO tokens VALUES ('hash_old', 'inst_old');
    `);
    old.close();

    const db = openDatabase(path);
    const store = createSqliteInstallationStore(db);
    expect(await store.getInstallation('inst_old')).toEqual({
      id: 'inst_old',
      integration: 'hello',
      organization: 'acme',
      target: 'space',
      space: 'space_1',
      status: 'active',
      configuration: { channel: 'general' },
      externalIds: [],
      createdAt: at(1),
      updatedAt: at(1),
    });
    expect(await store.findTokenOwner('hash_old')).toBe('inst_old');

    const placed = await store.adoptChildInstallation('inst_old', org('inst_parent', 1), 'hash_parent');
    expect(placed).toMatchObject({
      parentCreated: true,
      parent: { id: 'inst_parent' },
      child: { id: 'inst_old', parent: 'inst_parent', configuration: { channel: 'general' } },
    });
    // Adopting again changes nothing.
    expect(await store.adoptChildInstallation('inst_old', org('inst_other', 2), 'hash_other')).toMatchObject({
      parentCreated: false,
      parent: { id: 'inst_parent' },
    });
    expect(await store.getInstallation('inst_other')).toBeUndefined();
    db.close();

    // Opening it again (the next start) migrates nothing twice.
    const again = openDatabase(path);
    expect((await createSqliteInstallationStore(again).getInstallation('inst_old'))?.parent).toBe('inst_parent');
    again.close();
  });

  it(
    'puts a child under the earliest organization installation of its integration and organization, else the ' +
      'candidate',
    async () => {
      const db = openDatabase(':memory:');
      const store = createSqliteInstallationStore(db);
      const first = await store.insertChildInstallation(
        space('inst_a', 'space_1', 2),
        'hash_a',
        org('inst_created', 2),
        'hash_created',
      );
      expect(first).toMatchObject({
        parentCreated: true,
        parent: { id: 'inst_created', target: 'organization' },
        child: { parent: 'inst_created' },
      });
      expect(await store.findTokenOwner('hash_created')).toBe('inst_created');

      await store.insertInstallation(org('inst_earlier', 1), 'hash_earlier');
      await store.insertInstallation(org('inst_other_integration', 0, 'counter'), 'hash_counter');
      const second = await store.insertChildInstallation(
        space('inst_b', 'space_2', 3),
        'hash_b',
        org('inst_unused', 3),
        'hash_unused',
      );
      expect(second).toMatchObject({ parentCreated: false, parent: { id: 'inst_earlier' } });
      expect(await store.getInstallation('inst_unused')).toBeUndefined();
      expect(
        (await store.listInstallations({ parent: 'inst_earlier' })).map((installation) => installation.id),
      ).toEqual(['inst_b']);
      db.close();
    },
  );

  it('removes an organization installation with its children and all their tokens', async () => {
    const db = openDatabase(':memory:');
    const store = createSqliteInstallationStore(db);
    await store.insertChildInstallation(space('inst_a', 'space_1', 2), 'hash_a', org('inst_parent', 1), 'hash_parent');
    await store.insertChildInstallation(space('inst_b', 'space_2', 3), 'hash_b', org('inst_unused', 3), 'hash_unused');
    expect((await store.deleteInstallation('inst_parent'))?.id).toBe('inst_parent');
    for (const id of ['inst_parent', 'inst_a', 'inst_b']) expect(await store.getInstallation(id)).toBeUndefined();
    for (const hash of ['hash_parent', 'hash_a', 'hash_b']) expect(await store.findTokenOwner(hash)).toBeUndefined();
    db.close();
  });

  it('removes a child alone, leaving its organization installation', async () => {
    const db = openDatabase(':memory:');
    const store = createSqliteInstallationStore(db);
    await store.insertChildInstallation(space('inst_a', 'space_1', 2), 'hash_a', org('inst_parent', 1), 'hash_parent');
    await store.deleteInstallation('inst_a');
    expect(await store.getInstallation('inst_parent')).toBeDefined();
    expect(await store.findTokenOwner('hash_parent')).toBe('inst_parent');
    db.close();
  });

  it('keeps external ids and the time of an edit', async () => {
    const db = openDatabase(':memory:');
    const store = createSqliteInstallationStore(db);
    await store.insertInstallation(org('inst_1', 1), 'hash_1');
    const edit = await store.editInstallation('inst_1', (current) => ({
      status: current.status,
      configuration: { x: 1 },
      externalIds: ['gh-42'],
      updatedAt: at(5),
    }));
    expect(edit?.after).toMatchObject({ externalIds: ['gh-42'], updatedAt: at(5), createdAt: at(1) });
    expect(await store.getInstallation('inst_1')).toMatchObject({
      externalIds: ['gh-42'],
      updatedAt: at(5),
      configuration: { x: 1 },
    });
    db.close();
  });
});

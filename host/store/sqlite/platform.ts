// The platform store on node:sqlite: the platform tables (migrations.ts), seeded from the platform
// data, with one module per resource family. Storage only; authorization is platform-api's.

import type { DatabaseSync } from 'node:sqlite';
import { createResourceDirectory, type PlatformStore } from '../../platform-data/records.ts';
import { seedPlatformTables } from './platform-seed.ts';
import { createSpaceRecords } from './platform-spaces.ts';
import { createRevisionRecords } from './platform-revisions.ts';
import { inTransaction } from './transaction.ts';
import { createSiteRecords } from './platform-sites.ts';
import { createConversationRecords } from './platform-conversations.ts';

/** The platform store over a database opened by openDatabase; the caller closes it. */
export function createSqlitePlatformStore(db: DatabaseSync): PlatformStore {
  const statements = {
    spaces: db.prepare('SELECT id, organization FROM spaces'),
    sites: db.prepare('SELECT id, organization FROM sites'),
    siteSpaces: db.prepare('SELECT site, space FROM site_spaces ORDER BY site, position, space'),
  };
  const revisions = createRevisionRecords(db);
  return {
    ...createSpaceRecords(db, revisions),
    ...revisions.reads,
    ...createSiteRecords(db),
    ...createConversationRecords(db),
    async seed(data) {
      seedPlatformTables(db, data);
      // Spaces seeded just now (or before revisions were recorded) get their first revision.
      inTransaction(db, () => revisions.reconcile(new Date().toISOString()));
    },
    async loadDirectory() {
      const spaces = new Map(
        (statements.spaces.all() as unknown as { id: string; organization: string }[]).map((row) => [
          row.id,
          row.organization,
        ]),
      );
      const sites = new Map(
        (statements.sites.all() as unknown as { id: string; organization: string }[]).map((row) => [
          row.id,
          { organization: row.organization, spaces: [] as string[] },
        ]),
      );
      for (const row of statements.siteSpaces.all() as unknown as { site: string; space: string }[])
        sites.get(row.site)?.spaces.push(row.space);
      return createResourceDirectory(spaces, sites);
    },
  };
}

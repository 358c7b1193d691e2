// The platform store on node:sqlite: the tables of platform-tables.ts, seeded from the platform
// data, with one module per resource family. Storage only; authorization is platform-api's.

import type { DatabaseSync } from 'node:sqlite';
import type { PlatformStore } from '../../platform/records.ts';
import { PLATFORM_TABLES } from './platform-tables.ts';
import { seedPlatformTables } from './platform-seed.ts';
import { createSpaceRecords } from './platform-spaces.ts';
import { createSiteRecords } from './platform-sites.ts';
import { createConversationRecords } from './platform-conversations.ts';

/** The platform store over a database opened by openDatabase; the caller closes it. */
export function createSqlitePlatformStore(db: DatabaseSync): PlatformStore {
  db.exec(PLATFORM_TABLES);
  const spaces = createSpaceRecords(db);
  const sites = createSiteRecords(db);
  return {
    ...spaces,
    ...sites,
    ...createConversationRecords(db),
    seed: (data) => seedPlatformTables(db, data),
    spaceOrganization: (id) => spaces.getSpace(id)?.organization,
    siteInfo(id) {
      const site = sites.getSite(id);
      return site === undefined ? undefined : { organization: site.organization, spaces: site.spaces };
    },
  };
}

// Opens every store of the host on one node:sqlite database file (`--data`, default
// `.data/host.db`; `:memory:` for a throwaway one). Creates missing tables; never seeds or
// decides anything (assembly/ seeds the platform data and loads the token secret).

import { openDatabase } from './database.ts';
import { countTraffic } from './counted.ts';
import { createSqliteEventLog } from './event-log.ts';
import { createSqliteInstallationStore } from './installations.ts';
import { createSqliteMetaStore } from './meta.ts';
import { createSqliteOAuthStateStore } from './oauth-states.ts';
import { createSqliteSealedStateStore } from './sealed-oauth-states.ts';
import { createOutbox } from './outbox.ts';
import { createSqlitePlatformStore } from './platform.ts';
import { createSigningSecretStore } from './signing-secrets.ts';
import { createSqliteSecretStore } from './integration-secrets.ts';
import { createSqliteTaskStore } from './tasks.ts';
import { createSqliteOwedEventStore } from './owed-events.ts';
import { createSqlitePublisherStore, createSqliteVersionStore } from './published.ts';
import { withInstallationCache } from '../installation-cache.ts';
import type { HostStores } from '../types.ts';

export function openSqliteStores(path: string): HostStores {
  const db = openDatabase(path);
  try {
    // The readiness ping is not the host's work; everything prepared after countTraffic is counted.
    const ping = db.prepare('SELECT 1');
    const traffic = countTraffic(db);
    const eventLog = createSqliteEventLog(db);
    return {
      description: `sqlite ${path}`,
      shared: false,
      ping: async () => void ping.get(),
      traffic: () => traffic.snapshot(),
      meta: createSqliteMetaStore(db),
      // One process owns the file, so this store's own writes are every write there is.
      installations: withInstallationCache(createSqliteInstallationStore(db)),
      platform: createSqlitePlatformStore(db),
      eventLog,
      oauthStates: createSqliteOAuthStateStore(db),
      sealedOAuthStates: createSqliteSealedStateStore(db),
      outbox: createOutbox(db),
      signingSecrets: createSigningSecretStore(db),
      secrets: createSqliteSecretStore(db),
      tasks: createSqliteTaskStore(db),
      owedEvents: createSqliteOwedEventStore(db),
      versions: createSqliteVersionStore(db),
      publishers: createSqlitePublisherStore(db),
      async close() {
        try {
          await eventLog.flush();
        } finally {
          db.close();
        }
      },
    };
  } catch (error) {
    db.close();
    throw error;
  }
}

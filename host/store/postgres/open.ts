// Opens every store of the host on one PostgreSQL database (`--store postgres://…` or
// DATABASE_URL): checks the connection (one clear line when it fails), applies migrations under
// an advisory lock, and starts the change listener that keeps installation caches true across
// hosts and hears other hosts announce waiting work. Never seeds or decides anything (assembly/ does).

import type { Logger } from '../../common/logger.ts';
import { withInstallationCache } from '../installation-cache.ts';
import type { HostStores } from '../types.ts';
import { openDb } from './connection.ts';
import { createPostgresEventLog } from './event-log.ts';
import { createPostgresInstallationStore } from './installations.ts';
import { createPostgresMetaStore } from './meta.ts';
import { migratePostgres } from './migrations.ts';
import { listenForChanges } from './notifications.ts';
import { createPostgresOAuthStateStore } from './oauth-states.ts';
import { createPostgresSealedStateStore } from './sealed-oauth-states.ts';
import { createPostgresOutbox } from './outbox.ts';
import { createPostgresPlatformStore } from './platform.ts';
import { createPostgresSigningSecretStore } from './signing-secrets.ts';
import { createPostgresSecretStore } from './integration-secrets.ts';
import { createPostgresTaskStore } from './tasks.ts';
import { createPostgresOwedEventStore } from './owed-events.ts';
import { createWorkNotices } from './work-notices.ts';
import { createPostgresPublisherStore, createPostgresVersionStore } from './published.ts';

export interface PostgresStoreOptions {
  log: Logger;
  /** How long an operation waits for an unreachable database before it fails (default 15 s). */
  retryForMs?: number;
  maxConnections?: number;
}

export async function openPostgresStores(url: string, options: PostgresStoreOptions): Promise<HostStores> {
  const { log } = options;
  let lastRetryLog = 0;
  const db = await openDb(url, {
    ...(options.retryForMs !== undefined ? { retryForMs: options.retryForMs } : {}),
    ...(options.maxConnections !== undefined ? { maxConnections: options.maxConnections } : {}),
    onRetry(message) {
      // One line a second at most while the database is away.
      if (Date.now() - lastRetryLog < 1_000) return;
      lastRetryLog = Date.now();
      log.warn(`store: ${message}`);
    },
  });
  try {
    const applied = await migratePostgres(db);
    if (applied.length > 0) log.info(`store: applied migration(s) ${applied.join(', ')}`);
    const installations = withInstallationCache(createPostgresInstallationStore(db));
    const secrets = createPostgresSecretStore(db);
    const work = createWorkNotices(db, log);
    const versions = createPostgresVersionStore(db);
    const listener = listenForChanges(
      db.connectionString,
      {
        invalidate: (id) => installations.invalidate(id),
        setEnabled(enabled) {
          installations.setEnabled(enabled);
          if (enabled) work.resumed();
        },
        secretsChanged: (integration) => secrets.announce(integration),
        workAnnounced: (message) => work.heard(message),
        publishedChanged: (integration) => versions.announce(integration),
      },
      log,
    );
    await listener.ready;
    const eventLog = createPostgresEventLog(db, log);
    return {
      description: `postgres ${db.safeUrl}`,
      shared: true,
      ping: async () => void (await db.pool.query('SELECT 1')),
      traffic: () => db.traffic.snapshot(),
      meta: createPostgresMetaStore(db),
      installations,
      platform: createPostgresPlatformStore(db),
      eventLog,
      oauthStates: createPostgresOAuthStateStore(db),
      sealedOAuthStates: createPostgresSealedStateStore(db),
      outbox: createPostgresOutbox(db, { notice: (endpoints) => work.carry('webhooks', endpoints) }),
      signingSecrets: createPostgresSigningSecretStore(db),
      secrets,
      tasks: createPostgresTaskStore(db),
      owedEvents: createPostgresOwedEventStore(db),
      work,
      versions,
      publishers: createPostgresPublisherStore(db),
      async close() {
        work.close();
        try {
          await eventLog.flush();
        } finally {
          await listener.close();
          await db.close();
        }
      },
    };
  } catch (error) {
    await db.close().catch(() => {});
    throw error;
  }
}

// The versioned schema of the PostgreSQL store and its runner: `schema_migrations` records which
// versions a database has; hosts starting together apply each version once, under an advisory lock.
// Append new versions; never edit an applied one. JSON stays TEXT so answers match SQLite byte for byte.

import type { Db } from './connection.ts';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Advisory lock keys of this host (two int4 halves: an application tag and a purpose). */
export const LOCK_NAMESPACE = 0x1e57;
export const LOCK_MIGRATIONS = 1;
export const LOCK_SEED = 2;
/**
 * Key 1 of the lock taken while choosing (or creating) the organization installation of an integration in an
 * organization.
 */
export const LOCK_INSTALLATION_TREE = 0x1e58;
/** Key 1 of the lock taken while numbering a new published version of an integration (key 2: its name's hash). */
export const LOCK_PUBLISH = 0x1e59;

export const POSTGRES_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'initial schema',
    sql: `
  CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
  CREATE TABLE installations (
    id TEXT PRIMARY KEY, integration TEXT NOT NULL, organization TEXT NOT NULL, target TEXT NOT NULL,
    space TEXT, site TEXT, status TEXT NOT NULL, configuration TEXT NOT NULL, space_selection TEXT, created_at TEXT NOT
      NULL
  );
  CREATE INDEX installations_by_integration ON installations (integration);
  CREATE TABLE tokens (token_hash TEXT PRIMARY KEY, installation_id TEXT NOT NULL REFERENCES installations (id) ON
    DELETE CASCADE);
  CREATE TABLE organizations (id TEXT PRIMARY KEY, subdomain TEXT NOT NULL UNIQUE, title TEXT NOT NULL);
  CREATE TABLE members (
    organization TEXT NOT NULL REFERENCES organizations (id), id TEXT NOT NULL, email TEXT NOT NULL, role TEXT NOT NULL,
    PRIMARY KEY (organization, id)
  );
  CREATE TABLE spaces (
    id TEXT PRIMARY KEY, organization TEXT NOT NULL REFERENCES organizations (id), title TEXT NOT NULL,
    visibility TEXT NOT NULL, description TEXT NOT NULL, metadata TEXT NOT NULL
  );
  CREATE TABLE pages (
    seq BIGSERIAL NOT NULL, space TEXT NOT NULL REFERENCES spaces (id), id TEXT NOT NULL, title TEXT NOT NULL, markdown
      TEXT NOT NULL,
    revision INTEGER NOT NULL, updated_at TEXT NOT NULL, PRIMARY KEY (space, id)
  );
  CREATE TABLE sites (id TEXT PRIMARY KEY, organization TEXT NOT NULL REFERENCES organizations (id), title TEXT NOT
    NULL);
  CREATE TABLE site_spaces (
    site TEXT NOT NULL REFERENCES sites (id), space TEXT NOT NULL REFERENCES spaces (id), position INTEGER NOT NULL,
    PRIMARY KEY (site, space)
  );
  CREATE TABLE site_views (
    seq BIGSERIAL PRIMARY KEY, id TEXT NOT NULL UNIQUE, site TEXT NOT NULL REFERENCES sites (id),
    space TEXT, page TEXT, url TEXT NOT NULL, visitor_id TEXT NOT NULL, viewed_at TEXT NOT NULL
  );
  CREATE INDEX site_views_by_site ON site_views (site, seq);
  CREATE TABLE page_feedback (
    id TEXT PRIMARY KEY, site TEXT NOT NULL REFERENCES sites (id), space TEXT NOT NULL, page TEXT NOT NULL,
    rating TEXT NOT NULL, comment TEXT NOT NULL, created_at TEXT NOT NULL
  );
  CREATE TABLE openapi_specs (site TEXT PRIMARY KEY REFERENCES sites (id), spec TEXT NOT NULL, format TEXT NOT NULL,
    updated_at TEXT NOT NULL);
  CREATE TABLE adaptive_claims (site TEXT PRIMARY KEY REFERENCES sites (id), claims TEXT NOT NULL, updated_at TEXT NOT
    NULL);
  CREATE TABLE git_syncs (
    seq BIGSERIAL NOT NULL, id TEXT PRIMARY KEY, space TEXT NOT NULL REFERENCES spaces (id), installation_id TEXT NOT
      NULL, status TEXT NOT NULL, created_at TEXT NOT NULL
  );
  CREATE INDEX git_syncs_by_space ON git_syncs (space, seq);
  CREATE TABLE conversations (
    id TEXT PRIMARY KEY, organization TEXT NOT NULL, installation_id TEXT NOT NULL, space TEXT, site TEXT,
    messages TEXT NOT NULL, created_at TEXT NOT NULL
  );
  CREATE TABLE event_log (
    seq BIGSERIAL PRIMARY KEY, event_id TEXT NOT NULL, integration TEXT NOT NULL,
    installation_id TEXT NOT NULL, type TEXT NOT NULL, status INTEGER NOT NULL, error_code TEXT,
    duration_ms INTEGER NOT NULL, logs TEXT NOT NULL, created_at TEXT NOT NULL
  );
  CREATE INDEX event_log_by_integration ON event_log (integration, seq);
  CREATE INDEX event_log_by_event ON event_log (integration, event_id, seq);
  CREATE TABLE oauth_states (nonce TEXT PRIMARY KEY, installation_id TEXT NOT NULL, expires_at BIGINT NOT NULL, used_at
    BIGINT);
  CREATE INDEX oauth_states_by_expiry ON oauth_states (expires_at);
  CREATE TABLE webhook_deliveries (
    seq BIGSERIAL PRIMARY KEY, id TEXT NOT NULL UNIQUE, installation_id TEXT NOT NULL, event_id TEXT NOT NULL,
    event_type TEXT NOT NULL, url TEXT NOT NULL, endpoint TEXT NOT NULL, body TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'in_flight', 'succeeded', 'failed')),
    attempts INTEGER NOT NULL DEFAULT 0, next_attempt_at BIGINT, created_at BIGINT NOT NULL, redelivery_of TEXT,
    -- A claim is a lease: the claiming host owns the row until lease_until; then any host may take it.
    lease_until BIGINT, claim_token TEXT
  );
  CREATE INDEX webhook_deliveries_open ON webhook_deliveries (next_attempt_at, seq) WHERE status IN ('pending',
    'in_flight');
  CREATE INDEX webhook_deliveries_by_installation ON webhook_deliveries (installation_id, seq);
  CREATE TABLE webhook_attempts (
    delivery_id TEXT NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE, attempt INTEGER NOT NULL,
    started_at BIGINT NOT NULL, duration_ms INTEGER NOT NULL, status_code INTEGER, error_kind TEXT, error_message TEXT,
    next_attempt_at BIGINT, PRIMARY KEY (delivery_id, attempt)
  );
  CREATE TABLE webhook_secrets (installation_id TEXT PRIMARY KEY, current TEXT NOT NULL, previous TEXT,
    previous_expires_at TEXT);
`,
  },
  {
    version: 2,
    name: 'installations listed by creation',
    sql: 'CREATE INDEX IF NOT EXISTS installations_by_creation ON installations (created_at, id);',
  },
  {
    version: 3,
    name: 'event log request ids',
    sql: 'ALTER TABLE event_log ADD COLUMN IF NOT EXISTS request_id TEXT;',
  },
  {
    version: 4,
    name: 'installation hierarchy',
    // Space and site installations under an organization installation, and GitBook's externalIds
    // and updatedAt. Existing rows keep their data; the host gives parentless space and site
    // installations their organization installation at startup (installations/hierarchy.ts).
    sql: `
  ALTER TABLE installations ADD COLUMN parent TEXT REFERENCES installations (id) ON DELETE CASCADE;
  ALTER TABLE installations ADD COLUMN external_ids TEXT NOT NULL DEFAULT '[]';
  ALTER TABLE installations ADD COLUMN updated_at TEXT;
  CREATE INDEX installations_by_parent ON installations (parent);
`,
  },
  {
    version: 5,
    name: 'adaptive schemas',
    // GitBook's adaptive-content schema of a site (getSiteAdaptiveSchema / updateSiteAdaptiveSchema).
    sql: `
  CREATE TABLE adaptive_schemas (site TEXT PRIMARY KEY REFERENCES sites (id), json_schema TEXT NOT NULL, updated_at TEXT
    NOT NULL);
`,
  },
  {
    version: 6,
    name: 'integration tasks',
    // Tasks queued through GitBook's API (queueIntegrationTask), run later as `task` events.
    sql: `
  CREATE TABLE tasks (
    seq BIGSERIAL PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    integration TEXT NOT NULL,
    installation_id TEXT,
    event_id TEXT NOT NULL,
    payload TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'running', 'succeeded', 'failed')),
    attempts INTEGER NOT NULL DEFAULT 0,
    run_at BIGINT NOT NULL,
    lease_until BIGINT,
    last_status INTEGER,
    last_error TEXT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
  );
  CREATE INDEX tasks_due ON tasks (status, run_at);
  CREATE INDEX tasks_by_integration ON tasks (integration, seq);
`,
  },
  {
    version: 7,
    name: 'built-in integrations in their namespace',
    // The built-in webhook integration was named `webhook` until built-ins got a namespace no
    // manifest name can enter (integrations/builtin-names.ts). Until then a folder named
    // `webhook` never loaded, so every installation of that name is the built-in's; from now on
    // `webhook` is an author's name.
    sql: "UPDATE installations SET integration = 'host:webhook' WHERE integration = 'webhook';",
  },
  {
    version: 8,
    name: 'space revisions and Git requests',
    // As SQLite's version 10: a space's revisions with the page versions they hold (superseded ones
    // in page_versions), the first recorded at startup; Git imports and exports beside the syncs.
    sql: `
  CREATE TABLE space_revisions (
    seq BIGSERIAL PRIMARY KEY, space TEXT NOT NULL REFERENCES spaces (id), id TEXT NOT NULL, parent TEXT,
    pages TEXT NOT NULL, created_at TEXT NOT NULL
  );
  CREATE UNIQUE INDEX space_revisions_by_id ON space_revisions (space, id);
  CREATE INDEX space_revisions_by_space ON space_revisions (space, seq);
  CREATE TABLE page_versions (
    space TEXT NOT NULL REFERENCES spaces (id), page TEXT NOT NULL, revision INTEGER NOT NULL, title TEXT NOT NULL,
    markdown TEXT NOT NULL, updated_at TEXT NOT NULL, PRIMARY KEY (space, page, revision)
  );
  ALTER TABLE git_syncs ADD COLUMN kind TEXT NOT NULL DEFAULT 'sync';
  ALTER TABLE git_syncs ADD COLUMN request TEXT;
`,
  },
  {
    version: 9,
    name: 'integration secrets',
    // Secrets an operator stores per integration (host/secrets/): only AES-256-GCM ciphertext, the
    // nonce and the id of the key; the revision moves with every change (hosts poll it, and are
    // notified at commit as well).
    sql: `
  CREATE TABLE integration_secrets (
    integration TEXT NOT NULL,
    name TEXT NOT NULL,
    key_id INTEGER NOT NULL,
    nonce TEXT NOT NULL,
    ciphertext TEXT NOT NULL,
    set_at TEXT NOT NULL,
    set_by TEXT NOT NULL CHECK (set_by IN ('cli', 'api', 'console')),
    PRIMARY KEY (integration, name)
  );
  CREATE TABLE integration_secrets_revision (id INTEGER PRIMARY KEY CHECK (id = 1), revision BIGINT NOT NULL);
  INSERT INTO integration_secrets_revision (id, revision) VALUES (1, 0);
`,
  },
  {
    version: 10,
    name: 'sealed OAuth states',
    // As SQLite's version 12: the states the host puts in GitBook-runtime OAuth redirects
    // (oauth-seal/sealed-states.ts), redeemed once across every host, then forgotten once expired.
    sql: `
  CREATE TABLE sealed_oauth_states (
    nonce TEXT PRIMARY KEY,
    integration TEXT NOT NULL,
    installation_id TEXT NOT NULL,
    callback_path TEXT NOT NULL,
    binding_hash TEXT NOT NULL,
    original_state TEXT,
    expires_at BIGINT NOT NULL,
    used_at BIGINT
  );
  CREATE INDEX sealed_oauth_states_by_expiry ON sealed_oauth_states (expires_at);
`,
  },
  {
    version: 11,
    name: 'owed platform events',
    // The platform events the host owes an installation's integration (installation_setup and its
    // space and site forms), written in the transaction of the change that causes them and
    // delivered in order per installation under a lease (host/owed-events/).
    sql: `
  CREATE TABLE owed_events (
    seq BIGSERIAL PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    installation_id TEXT NOT NULL,
    integration TEXT NOT NULL,
    type TEXT NOT NULL,
    event TEXT NOT NULL,
    request_id TEXT,
    status TEXT NOT NULL CHECK (status IN ('pending', 'running', 'delivered', 'failed')),
    attempts INTEGER NOT NULL DEFAULT 0,
    run_at BIGINT NOT NULL,
    lease_until BIGINT,
    last_status INTEGER,
    last_error TEXT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
  );
  CREATE INDEX owed_events_due ON owed_events (status, run_at);
  CREATE INDEX owed_events_by_installation ON owed_events (installation_id, seq);
`,
  },
  {
    version: 12,
    name: 'published integrations',
    // As SQLite 14: immutable versions (a trigger refuses any UPDATE), the current version of each,
    // the revision every host polls, publisher tokens (hashes only), and the event log's version.
    sql: `
  CREATE TABLE integration_versions (
    integration TEXT NOT NULL,
    version INTEGER NOT NULL,
    organization TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    bundle_hash TEXT NOT NULL,
    files INTEGER NOT NULL,
    bytes INTEGER NOT NULL,
    published_by TEXT NOT NULL,
    published_at TEXT NOT NULL,
    archive BYTEA NOT NULL,
    bundle TEXT NOT NULL,
    source_map TEXT,
    PRIMARY KEY (integration, version)
  );
  CREATE FUNCTION integration_versions_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN RAISE EXCEPTION 'a published version is immutable'; END $$;
  CREATE TRIGGER integration_versions_immutable BEFORE UPDATE ON integration_versions
    FOR EACH ROW EXECUTE FUNCTION integration_versions_immutable();
  CREATE TABLE integration_current (
    integration TEXT PRIMARY KEY,
    version INTEGER NOT NULL,
    changed_by TEXT NOT NULL,
    changed_at TEXT NOT NULL,
    FOREIGN KEY (integration, version) REFERENCES integration_versions (integration, version)
  );
  CREATE TABLE publish_revision (id INTEGER PRIMARY KEY CHECK (id = 1), revision BIGINT NOT NULL);
  INSERT INTO publish_revision (id, revision) VALUES (1, 0);
  CREATE TABLE publishers (
    id TEXT PRIMARY KEY,
    organization TEXT NOT NULL,
    label TEXT NOT NULL,
    token_hash TEXT NOT NULL,
    created_at TEXT NOT NULL,
    revoked_at TEXT
  );
  ALTER TABLE event_log ADD COLUMN version INTEGER;
`,
  },
];

/**
 * Applies every migration the database lacks, in one transaction under an advisory lock; returns the versions applied.
 */
export async function migratePostgres(
  db: Db,
  migrations: readonly Migration[] = POSTGRES_MIGRATIONS,
): Promise<number[]> {
  return db.transaction(async (client) => {
    // Held until commit: a second host starting at the same time waits, then finds nothing to do.
    await client.query('SELECT pg_advisory_xact_lock($1, $2)', [LOCK_NAMESPACE, LOCK_MIGRATIONS]);
    await client.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER ' +
        'PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)',
    );
    const applied = new Set(
      (await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((row) => row.version),
    );
    const done: number[] = [];
    for (const migration of migrations) {
      if (applied.has(migration.version)) continue;
      await client.query(migration.sql);
      await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
        migration.version,
        migration.name,
        new Date().toISOString(),
      ]);
      done.push(migration.version);
    }
    return done;
  });
}

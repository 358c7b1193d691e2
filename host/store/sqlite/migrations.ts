// The versioned schema of the SQLite store and its runner: `schema_migrations` records which
// versions a database has. Version 1 is the schema every earlier release created (IF NOT EXISTS),
// so an existing .data/host.db adopts it as is. Append new versions; never edit an applied one.

import type { DatabaseSync } from 'node:sqlite';
import { inTransaction } from './transaction.ts';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const SQLITE_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'initial schema',
    sql: `
  CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS installations (
    id TEXT PRIMARY KEY, integration TEXT NOT NULL, organization TEXT NOT NULL, target TEXT NOT NULL,
    space TEXT, site TEXT, status TEXT NOT NULL, configuration TEXT NOT NULL, space_selection TEXT, created_at TEXT NOT
      NULL
  );
  CREATE INDEX IF NOT EXISTS installations_by_integration ON installations (integration);
  CREATE TABLE IF NOT EXISTS tokens (
    token_hash TEXT PRIMARY KEY, installation_id TEXT NOT NULL REFERENCES installations (id) ON DELETE CASCADE
  );
  CREATE TABLE IF NOT EXISTS organizations (id TEXT PRIMARY KEY, subdomain TEXT NOT NULL UNIQUE, title TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS members (
    organization TEXT NOT NULL REFERENCES organizations (id), id TEXT NOT NULL, email TEXT NOT NULL, role TEXT NOT NULL,
    PRIMARY KEY (organization, id)
  );
  CREATE TABLE IF NOT EXISTS spaces (
    id TEXT PRIMARY KEY, organization TEXT NOT NULL REFERENCES organizations (id), title TEXT NOT NULL,
    visibility TEXT NOT NULL, description TEXT NOT NULL, metadata TEXT NOT NULL
  );
  CREATE TABLE IF NOT EXISTS pages (
    space TEXT NOT NULL REFERENCES spaces (id), id TEXT NOT NULL, title TEXT NOT NULL, markdown TEXT NOT NULL,
    revision INTEGER NOT NULL, updated_at TEXT NOT NULL, PRIMARY KEY (space, id)
  );
  CREATE TABLE IF NOT EXISTS sites (id TEXT PRIMARY KEY, organization TEXT NOT NULL REFERENCES organizations (id), title
    TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS site_spaces (
    site TEXT NOT NULL REFERENCES sites (id), space TEXT NOT NULL REFERENCES spaces (id), position INTEGER NOT NULL,
    PRIMARY KEY (site, space)
  );
  CREATE TABLE IF NOT EXISTS site_views (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, site TEXT NOT NULL REFERENCES sites (id),
    space TEXT, page TEXT, url TEXT NOT NULL, visitor_id TEXT NOT NULL, viewed_at TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS site_views_by_site ON site_views (site, seq);
  CREATE TABLE IF NOT EXISTS page_feedback (
    id TEXT PRIMARY KEY, site TEXT NOT NULL REFERENCES sites (id), space TEXT NOT NULL, page TEXT NOT NULL,
    rating TEXT NOT NULL, comment TEXT NOT NULL, created_at TEXT NOT NULL
  );
  CREATE TABLE IF NOT EXISTS openapi_specs (
    site TEXT PRIMARY KEY REFERENCES sites (id), spec TEXT NOT NULL, format TEXT NOT NULL, updated_at TEXT NOT NULL
  );
  CREATE TABLE IF NOT EXISTS adaptive_claims (site TEXT PRIMARY KEY REFERENCES sites (id), claims TEXT NOT NULL,
    updated_at TEXT NOT NULL);
  CREATE TABLE IF NOT EXISTS git_syncs (
    id TEXT PRIMARY KEY, space TEXT NOT NULL REFERENCES spaces (id), installation_id TEXT NOT NULL,
    status TEXT NOT NULL, created_at TEXT NOT NULL
  );
  CREATE TABLE IF NOT EXISTS conversations (
    id TEXT PRIMARY KEY, organization TEXT NOT NULL, installation_id TEXT NOT NULL, space TEXT, site TEXT,
    messages TEXT NOT NULL, created_at TEXT NOT NULL
  );
  CREATE TABLE IF NOT EXISTS event_log (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, event_id TEXT NOT NULL, integration TEXT NOT NULL,
    installation_id TEXT NOT NULL, type TEXT NOT NULL, status INTEGER NOT NULL, error_code TEXT,
    duration_ms INTEGER NOT NULL, logs TEXT NOT NULL, created_at TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS event_log_by_integration ON event_log (integration, seq);
  CREATE INDEX IF NOT EXISTS event_log_by_event ON event_log (integration, event_id, seq);
  CREATE TABLE IF NOT EXISTS oauth_states (
    nonce TEXT PRIMARY KEY, installation_id TEXT NOT NULL, expires_at INTEGER NOT NULL, used_at INTEGER
  );
  CREATE INDEX IF NOT EXISTS oauth_states_by_expiry ON oauth_states (expires_at);
  CREATE TABLE IF NOT EXISTS webhook_deliveries (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    installation_id TEXT NOT NULL,
    event_id TEXT NOT NULL,
    event_type TEXT NOT NULL,
    url TEXT NOT NULL,
    endpoint TEXT NOT NULL,
    body TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'in_flight', 'succeeded', 'failed')),
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER,
    created_at INTEGER NOT NULL,
    redelivery_of TEXT
  );
  CREATE INDEX IF NOT EXISTS webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at, seq);
  CREATE INDEX IF NOT EXISTS webhook_deliveries_by_installation ON webhook_deliveries (installation_id, seq);
  CREATE TABLE IF NOT EXISTS webhook_attempts (
    delivery_id TEXT NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
    attempt INTEGER NOT NULL,
    started_at INTEGER NOT NULL,
    duration_ms INTEGER NOT NULL,
    status_code INTEGER,
    error_kind TEXT,
    error_message TEXT,
    next_attempt_at INTEGER,
    PRIMARY KEY (delivery_id, attempt)
  );
  CREATE TABLE IF NOT EXISTS webhook_secrets (
    installation_id TEXT PRIMARY KEY, current TEXT NOT NULL, previous TEXT, previous_expires_at TEXT
  );
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
    sql: 'ALTER TABLE event_log ADD COLUMN request_id TEXT;',
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
  CREATE INDEX IF NOT EXISTS installations_by_parent ON installations (parent);
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
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    integration TEXT NOT NULL,
    installation_id TEXT,
    event_id TEXT NOT NULL,
    payload TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'running', 'succeeded', 'failed')),
    attempts INTEGER NOT NULL DEFAULT 0,
    run_at INTEGER NOT NULL,
    lease_until INTEGER,
    last_status INTEGER,
    last_error TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  CREATE INDEX tasks_due ON tasks (status, run_at);
  CREATE INDEX tasks_by_integration ON tasks (integration, seq);
`,
  },
  {
    version: 7,
    name: 'event log without the event-id index',
    // Every dispatch writes a row, and event ids are random: keeping them indexed cost each row a
    // b-tree insert and delete at a random place and about 40 % of the log's write time. The one
    // read by event id (an admin's GET of one event) walks that integration's rows instead, which
    // pruning bounds (event-log.ts).
    sql: 'DROP INDEX IF EXISTS event_log_by_event;',
  },
  {
    version: 8,
    name: 'outbox tables with fewer pages per write',
    // Every published event inserts a delivery as its own commit, so each page a row touches is a
    // WAL frame written per event. AUTOINCREMENT kept sqlite_sequence as one more page per insert:
    // plain rowids still grow (the largest seq + 1), and deliveries are only ever deleted by an
    // operator, after they are done. Attempts are keyed by (delivery_id, attempt) only, so
    // WITHOUT ROWID stores them in that key's b-tree instead of a table and an index beside it.
    // The tables are copied, seq and all, and renamed; the attempts' foreign key follows the rename.
    // Attempts whose delivery is gone (deleted by a tool with foreign keys off, as sqlite3 has by
    // default) are left behind: nothing could read them, and copying them would fail the start.
    // The definitions are written out again on purpose: an applied version's text is never edited.
    sql: `
  CREATE TABLE webhook_deliveries_v8 (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    installation_id TEXT NOT NULL,
    event_id TEXT NOT NULL,
    event_type TEXT NOT NULL,
    url TEXT NOT NULL,
    endpoint TEXT NOT NULL,
    body TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'in_flight', 'succeeded', 'failed')),
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER,
    created_at INTEGER NOT NULL,
    redelivery_of TEXT
  );
  INSERT INTO webhook_deliveries_v8 (seq, id, installation_id, event_id, event_type, url, endpoint, body, status,
    attempts, next_attempt_at, created_at, redelivery_of)
    SELECT seq, id, installation_id, event_id, event_type, url, endpoint, body, status, attempts, next_attempt_at,
      created_at, redelivery_of FROM webhook_deliveries;
  CREATE TABLE webhook_attempts_v8 (
    delivery_id TEXT NOT NULL REFERENCES webhook_deliveries_v8 (id) ON DELETE CASCADE,
    attempt INTEGER NOT NULL,
    started_at INTEGER NOT NULL,
    duration_ms INTEGER NOT NULL,
    status_code INTEGER,
    error_kind TEXT,
    error_message TEXT,
    next_attempt_at INTEGER,
    PRIMARY KEY (delivery_id, attempt)
  ) WITHOUT ROWID;
  INSERT INTO webhook_attempts_v8 SELECT delivery_id, attempt, started_at, duration_ms, status_code, error_kind,
    error_message, next_attempt_at FROM webhook_attempts
    WHERE delivery_id IN (SELECT id FROM webhook_deliveries_v8);
  DROP TABLE webhook_attempts;
  DROP TABLE webhook_deliveries;
  ALTER TABLE webhook_deliveries_v8 RENAME TO webhook_deliveries;
  ALTER TABLE webhook_attempts_v8 RENAME TO webhook_attempts;
  CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at, seq);
  CREATE INDEX webhook_deliveries_by_installation ON webhook_deliveries (installation_id, seq);
`,
  },
  {
    version: 9,
    name: 'built-in integrations in their namespace',
    // The built-in webhook integration was named `webhook` until built-ins got a namespace no
    // manifest name can enter (integrations/builtin-names.ts). Until then a folder named
    // `webhook` never loaded, so every installation of that name is the built-in's; from now on
    // `webhook` is an author's name.
    sql: "UPDATE installations SET integration = 'host:webhook' WHERE integration = 'webhook';",
  },
  {
    version: 10,
    name: 'space revisions and Git requests',
    // A space's revisions (GitBook's getRevisionById and the rest): each records which version of
    // every page it holds; page_versions keeps the superseded versions the kept revisions hold (a
    // page's current version stays in pages). The first revision of each space is recorded at
    // startup, from its pages as they are (platform store seed). Git imports and exports are kept
    // with the syncs, with what they asked for (never the URL's credentials).
    sql: `
  CREATE TABLE space_revisions (
    seq INTEGER PRIMARY KEY, space TEXT NOT NULL REFERENCES spaces (id), id TEXT NOT NULL, parent TEXT,
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
    version: 11,
    name: 'integration secrets',
    // Secrets an operator stores per integration (host/secrets/): only AES-256-GCM ciphertext, the
    // nonce and the id of the key; the revision moves with every change, so a host polling it sees
    // what another process (the command line) wrote.
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
  ) WITHOUT ROWID;
  CREATE TABLE integration_secrets_revision (id INTEGER PRIMARY KEY CHECK (id = 1), revision INTEGER NOT NULL);
  INSERT INTO integration_secrets_revision (id, revision) VALUES (1, 0);
`,
  },
  {
    version: 12,
    name: 'sealed OAuth states',
    // The states the host puts in GitBook-runtime OAuth redirects (oauth-seal/sealed-states.ts):
    // redeemed once, then forgotten once expired.
    sql: `
  CREATE TABLE sealed_oauth_states (
    nonce TEXT PRIMARY KEY,
    integration TEXT NOT NULL,
    installation_id TEXT NOT NULL,
    callback_path TEXT NOT NULL,
    binding_hash TEXT NOT NULL,
    original_state TEXT,
    expires_at INTEGER NOT NULL,
    used_at INTEGER
  );
  CREATE INDEX sealed_oauth_states_by_expiry ON sealed_oauth_states (expires_at);
`,
  },
  {
    version: 13,
    name: 'owed platform events',
    // The platform events the host owes an installation's integration (installation_setup and its
    // space and site forms), written in the transaction of the change that causes them and
    // delivered in order per installation under a lease (host/owed-events/).
    sql: `
  CREATE TABLE owed_events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    installation_id TEXT NOT NULL,
    integration TEXT NOT NULL,
    type TEXT NOT NULL,
    event TEXT NOT NULL,
    request_id TEXT,
    status TEXT NOT NULL CHECK (status IN ('pending', 'running', 'delivered', 'failed')),
    attempts INTEGER NOT NULL DEFAULT 0,
    run_at INTEGER NOT NULL,
    lease_until INTEGER,
    last_status INTEGER,
    last_error TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  CREATE INDEX owed_events_due ON owed_events (status, run_at);
  CREATE INDEX owed_events_by_installation ON owed_events (installation_id, seq);
`,
  },
  {
    version: 14,
    name: 'published integrations',
    // Integrations published through the admin API (host/publish/): immutable versions (a trigger
    // refuses any UPDATE), the current version of each, the revision every host polls, publisher
    // tokens (hashes only), and the version that served each event-log entry.
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
    archive BLOB NOT NULL,
    bundle TEXT NOT NULL,
    source_map TEXT,
    PRIMARY KEY (integration, version)
  );
  CREATE TRIGGER integration_versions_immutable BEFORE UPDATE ON integration_versions
  BEGIN SELECT RAISE(ABORT, 'a published version is immutable'); END;
  CREATE TABLE integration_current (
    integration TEXT PRIMARY KEY,
    version INTEGER NOT NULL,
    changed_by TEXT NOT NULL,
    changed_at TEXT NOT NULL,
    FOREIGN KEY (integration, version) REFERENCES integration_versions (integration, version)
  );
  CREATE TABLE publish_revision (id INTEGER PRIMARY KEY CHECK (id = 1), revision INTEGER NOT NULL);
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

/** Applies every migration the database lacks, each in its own transaction; returns the versions applied. */
export function migrateSqlite(db: DatabaseSync, migrations: readonly Migration[] = SQLITE_MIGRATIONS): number[] {
  db.exec(
    'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER ' +
      'PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)',
  );
  const applied = new Set(
    (db.prepare('SELECT version FROM schema_migrations').all() as unknown as { version: number }[]).map(
      (row) => row.version,
    ),
  );
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  const done: number[] = [];
  for (const migration of migrations) {
    if (applied.has(migration.version)) continue;
    inTransaction(db, () => {
      db.exec(migration.sql);
      record.run(migration.version, migration.name, new Date().toISOString());
    });
    done.push(migration.version);
  }
  return done;
}

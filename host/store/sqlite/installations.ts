// Installations and their token hashes on node:sqlite (the InstallationStore of installations/).
// Storage only: it never decides policy (who may install, what a status means).

import type { DatabaseSync } from 'node:sqlite';
import type { Installation, InstallationStore } from '../../installations/model.ts';

interface InstallationRow {
  id: string;
  integration: string;
  organization: string;
  target: string;
  space: string | null;
  site: string | null;
  status: string;
  configuration: string;
  space_selection: string | null;
  created_at: string;
}

const SCHEMA = `
  CREATE TABLE IF NOT EXISTS installations (
    id TEXT PRIMARY KEY, integration TEXT NOT NULL, organization TEXT NOT NULL, target TEXT NOT NULL,
    space TEXT, site TEXT, status TEXT NOT NULL, configuration TEXT NOT NULL, space_selection TEXT, created_at TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS installations_by_integration ON installations (integration);
  CREATE TABLE IF NOT EXISTS tokens (
    token_hash TEXT PRIMARY KEY, installation_id TEXT NOT NULL REFERENCES installations (id) ON DELETE CASCADE
  );
`;

function toInstallation(row: InstallationRow): Installation {
  return {
    id: row.id,
    integration: row.integration,
    organization: row.organization,
    target: row.target as Installation['target'],
    ...(row.space ? { space: row.space } : {}),
    ...(row.site ? { site: row.site } : {}),
    status: row.status as Installation['status'],
    configuration: JSON.parse(row.configuration) as Record<string, unknown>,
    ...(row.space_selection ? { spaceSelection: JSON.parse(row.space_selection) as Installation['spaceSelection'] } : {}),
    createdAt: row.created_at,
  };
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

export function createSqliteInstallationStore(db: DatabaseSync): InstallationStore {
  db.exec(SCHEMA);
  const statements = {
    insert: db.prepare('INSERT INTO installations (id, integration, organization, target, space, site, status, configuration, space_selection, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)'),
    insertToken: db.prepare('INSERT INTO tokens (token_hash, installation_id) VALUES (?, ?)'),
    get: db.prepare('SELECT * FROM installations WHERE id = ?'),
    listAll: db.prepare('SELECT * FROM installations ORDER BY created_at, id'),
    listFor: db.prepare('SELECT * FROM installations WHERE integration = ? ORDER BY created_at, id'),
    update: db.prepare('UPDATE installations SET status = COALESCE(?, status), configuration = COALESCE(?, configuration) WHERE id = ?'),
    tokenOwner: db.prepare('SELECT installation_id FROM tokens WHERE token_hash = ?'),
    deleteTokens: db.prepare('DELETE FROM tokens WHERE installation_id = ?'),
    delete: db.prepare('DELETE FROM installations WHERE id = ?'),
  };
  const cache = new Map<string, Installation>();
  return {
    insertInstallation(installation, tokenHash) {
      cache.delete(installation.id);
      db.exec('BEGIN');
      try {
        const { id, integration, organization, target, space, site, status, configuration, spaceSelection, createdAt } = installation;
        const selection = spaceSelection === undefined ? null : JSON.stringify(spaceSelection);
        statements.insert.run(id, integration, organization, target, space ?? null, site ?? null, status, JSON.stringify(configuration), selection, createdAt);
        statements.insertToken.run(tokenHash, id);
        db.exec('COMMIT');
      } catch (error) {
        db.exec('ROLLBACK');
        throw error;
      }
    },
    getInstallation(id) {
      // Read on every dispatch: served from a cache this store invalidates on each of its writes.
      // Cached records are frozen, so a caller that tried to mutate one would fail loudly.
      const cached = cache.get(id);
      if (cached !== undefined) return cached;
      const row = statements.get.get(id) as InstallationRow | undefined;
      if (row === undefined) return undefined;
      const installation = deepFreeze(toInstallation(row));
      cache.set(id, installation);
      return installation;
    },
    listInstallations(filter) {
      const rows = (filter?.integration ? statements.listFor.all(filter.integration) : statements.listAll.all()) as unknown as InstallationRow[];
      return rows.map(toInstallation);
    },
    updateInstallation(id, patch) {
      cache.delete(id);
      statements.update.run(patch.status ?? null, patch.configuration ? JSON.stringify(patch.configuration) : null, id);
    },
    findTokenOwner: (tokenHash) => (statements.tokenOwner.get(tokenHash) as { installation_id: string } | undefined)?.installation_id,
    deleteInstallation(id) {
      cache.delete(id);
      db.exec('BEGIN');
      try {
        statements.deleteTokens.run(id);
        statements.delete.run(id);
        db.exec('COMMIT');
      } catch (error) {
        db.exec('ROLLBACK');
        throw error;
      }
    },
  };
}

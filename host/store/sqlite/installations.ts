// Installations and their token hashes on node:sqlite (the InstallationStore of installations/).
// Storage only: it never decides policy (who may install, what a status means) and never caches
// (store/installation-cache.ts does, for every store).

import type { DatabaseSync } from 'node:sqlite';
import type { Installation, InstallationFilter, InstallationStore } from '../../installations/model.ts';
import { installationListQuery } from '../installation-filter.ts';
import { inTransaction } from './transaction.ts';

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

export function createSqliteInstallationStore(db: DatabaseSync): InstallationStore {
  const statements = {
    insert: db.prepare('INSERT INTO installations (id, integration, organization, target, space, site, status, configuration, space_selection, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)'),
    insertToken: db.prepare('INSERT INTO tokens (token_hash, installation_id) VALUES (?, ?)'),
    get: db.prepare('SELECT * FROM installations WHERE id = ?'),
    update: db.prepare('UPDATE installations SET status = ?, configuration = ? WHERE id = ?'),
    tokenOwner: db.prepare('SELECT installation_id FROM tokens WHERE token_hash = ?'),
    deleteTokens: db.prepare('DELETE FROM tokens WHERE installation_id = ?'),
    delete: db.prepare('DELETE FROM installations WHERE id = ? RETURNING *'),
  };
  const read = (id: string): Installation | undefined => {
    const row = statements.get.get(id) as InstallationRow | undefined;
    return row === undefined ? undefined : toInstallation(row);
  };
  // One prepared statement per combination of filter fields used (a handful), built on first use.
  const listStatements = new Map<string, ReturnType<DatabaseSync['prepare']>>();
  const list = (filter: InstallationFilter): Installation[] => {
    const { sql, values } = installationListQuery(filter, () => '?');
    let statement = listStatements.get(sql);
    if (statement === undefined) listStatements.set(sql, (statement = db.prepare(sql)));
    return (statement.all(...values) as unknown as InstallationRow[]).map(toInstallation);
  };
  return {
    async insertInstallation(installation, tokenHash) {
      inTransaction(db, () => {
        const { id, integration, organization, target, space, site, status, configuration, spaceSelection, createdAt } = installation;
        const selection = spaceSelection === undefined ? null : JSON.stringify(spaceSelection);
        statements.insert.run(id, integration, organization, target, space ?? null, site ?? null, status, JSON.stringify(configuration), selection, createdAt);
        statements.insertToken.run(tokenHash, id);
      });
    },
    getInstallation: async (id) => read(id),
    listInstallations: async (filter = {}) => list(filter),
    async editInstallation(id, plan) {
      // Synchronous from read to write, inside BEGIN IMMEDIATE: nothing can interleave.
      return inTransaction(db, () => {
        const before = read(id);
        if (before === undefined) return undefined;
        const { status, configuration } = plan(before);
        statements.update.run(status, JSON.stringify(configuration), id);
        return { before, after: { ...before, status, configuration } };
      });
    },
    findTokenOwner: async (tokenHash) => (statements.tokenOwner.get(tokenHash) as { installation_id: string } | undefined)?.installation_id,
    async deleteInstallation(id) {
      return inTransaction(db, () => {
        statements.deleteTokens.run(id);
        const row = statements.delete.get(id) as InstallationRow | undefined;
        return row === undefined ? undefined : toInstallation(row);
      });
    },
  };
}

// Installations and their token hashes on node:sqlite (the InstallationStore of installations/).
// Storage only: it never decides policy (who may install, what a status means) and never caches
// (store/installation-cache.ts does, for every store).

import type { DatabaseSync } from 'node:sqlite';
import type {
  Installation,
  InstallationFilter,
  InstallationStore,
  PlacedInstallation,
} from '../../installations/model.ts';
import { installationListQuery } from '../installation-filter.ts';
import { inTransaction } from './transaction.ts';
import { toInstallation, type InstallationRow } from '../installation-rows.ts';
import { sqliteOwedEventWriter } from './owed-events.ts';

export function createSqliteInstallationStore(db: DatabaseSync): InstallationStore {
  const statements = {
    insert: db.prepare(
      'INSERT INTO installations (id, integration, organization, target, space, site, parent, status, ' +
        'configuration, external_ids, space_selection, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ' +
        '?, ?, ?, ?, ?)',
    ),
    insertToken: db.prepare('INSERT INTO tokens (token_hash, installation_id) VALUES (?, ?)'),
    get: db.prepare('SELECT * FROM installations WHERE id = ?'),
    firstOrganization: db.prepare(
      'SELECT * FROM installations WHERE integration = ? AND organization = ? ' +
        "AND target = 'organization' ORDER BY created_at, id LIMIT 1",
    ),
    setParent: db.prepare('UPDATE installations SET parent = ? WHERE id = ?'),
    update: db.prepare(
      'UPDATE installations SET status = ?, configuration = ?, external_ids = ?, updated_at = ? WHERE id = ?',
    ),
    tokenOwner: db.prepare('SELECT installation_id FROM tokens WHERE token_hash = ?'),
    deleteTokens: db.prepare(
      'DELETE FROM tokens WHERE installation_id = ? OR ' +
        'installation_id IN (SELECT id FROM installations WHERE parent ' +
        '= ?)',
    ),
    deleteChildren: db.prepare('DELETE FROM installations WHERE parent = ?'),
    delete: db.prepare('DELETE FROM installations WHERE id = ? RETURNING *'),
    deleteOwed: db.prepare(
      'DELETE FROM owed_events WHERE installation_id = ? OR ' +
        'installation_id IN (SELECT id FROM installations WHERE parent = ' +
        '?)',
    ),
  };
  const owe = sqliteOwedEventWriter(db);
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
  const insert = (installation: Installation, tokenHash: string): void => {
    const {
      id,
      integration,
      organization,
      target,
      space,
      site,
      parent,
      status,
      configuration,
      externalIds,
      spaceSelection,
      createdAt,
      updatedAt,
    } = installation;
    const selection = spaceSelection === undefined ? null : JSON.stringify(spaceSelection);
    statements.insert.run(
      id,
      integration,
      organization,
      target,
      space ?? null,
      site ?? null,
      parent ?? null,
      status,
      JSON.stringify(configuration),
      JSON.stringify(externalIds ?? []),
      selection,
      createdAt,
      updatedAt ?? createdAt,
    );
    statements.insertToken.run(tokenHash, id);
  };
  /**
   * The organization installation a child of (integration, organization) goes under, created from the candidate when
   * there is none.
   */
  const organizationFor = (
    integration: string,
    organization: string,
    candidate: Installation,
    candidateTokenHash: string,
  ): { parent: Installation; parentCreated: boolean } => {
    const row = statements.firstOrganization.get(integration, organization) as InstallationRow | undefined;
    if (row !== undefined) return { parent: toInstallation(row), parentCreated: false };
    insert(candidate, candidateTokenHash);
    return { parent: read(candidate.id)!, parentCreated: true };
  };
  return {
    async insertInstallation(installation, tokenHash, owed = []) {
      inTransaction(db, () => {
        insert(installation, tokenHash);
        owe(owed);
      });
    },
    async insertChildInstallation(child, childTokenHash, candidateParent, parentTokenHash, oweFor) {
      return inTransaction(db, (): PlacedInstallation => {
        const { parent, parentCreated } = organizationFor(
          child.integration,
          child.organization,
          candidateParent,
          parentTokenHash,
        );
        insert({ ...child, parent: parent.id }, childTokenHash);
        const placed = { child: read(child.id)!, parent, parentCreated };
        if (oweFor !== undefined) owe(oweFor(placed));
        return placed;
      });
    },
    async adoptChildInstallation(childId, candidateParent, parentTokenHash) {
      return inTransaction(db, (): PlacedInstallation | undefined => {
        const child = read(childId);
        if (child === undefined) return undefined;
        if (child.parent !== undefined) {
          const current = read(child.parent);
          if (current !== undefined) return { child, parent: current, parentCreated: false };
        }
        const { parent, parentCreated } = organizationFor(
          child.integration,
          child.organization,
          candidateParent,
          parentTokenHash,
        );
        statements.setParent.run(parent.id, childId);
        return { child: read(childId)!, parent, parentCreated };
      });
    },
    getInstallation: async (id) => read(id),
    listInstallations: async (filter = {}) => list(filter),
    async editInstallation(id, plan, oweFor) {
      // Synchronous from read to write, inside BEGIN IMMEDIATE: nothing can interleave.
      return inTransaction(db, () => {
        const before = read(id);
        if (before === undefined) return undefined;
        const patch = plan(before);
        const externalIds = patch.externalIds ?? before.externalIds ?? [];
        const updatedAt = patch.updatedAt ?? before.updatedAt ?? before.createdAt;
        statements.update.run(
          patch.status,
          JSON.stringify(patch.configuration),
          JSON.stringify(externalIds),
          updatedAt,
          id,
        );
        const edit = {
          before,
          after: { ...before, status: patch.status, configuration: patch.configuration, externalIds, updatedAt },
        };
        if (oweFor !== undefined) owe(oweFor(edit));
        return edit;
      });
    },
    findTokenOwner: async (tokenHash) =>
      (statements.tokenOwner.get(tokenHash) as { installation_id: string } | undefined)?.installation_id,
    async deleteInstallation(id) {
      return inTransaction(db, () => {
        // The space and site installations under it go with it (explicitly: the cascade of a
        // column added by ALTER TABLE is not relied on), tokens first.
        statements.deleteTokens.run(id, id);
        statements.deleteOwed.run(id, id);
        statements.deleteChildren.run(id);
        const row = statements.delete.get(id) as InstallationRow | undefined;
        return row === undefined ? undefined : toInstallation(row);
      });
    },
  };
}

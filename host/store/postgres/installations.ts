// Installations and their token hashes on PostgreSQL. Every write notifies the other hosts
// (NOTIFY inside the transaction, delivered at commit) so their caches drop the record and its
// tokens; edits lock the row (SELECT … FOR UPDATE) so two hosts' edits never interleave.

import type { Installation, InstallationStore } from '../../installations/model.ts';
import { installationListQuery } from '../installation-filter.ts';
import type { Db, Queryable } from './connection.ts';
import { CHANNEL, installationMessage } from './notifications.ts';

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

const notify = (client: Queryable, id: string) => client.query('SELECT pg_notify($1, $2)', [CHANNEL, installationMessage(id)]);

export function createPostgresInstallationStore(db: Db): InstallationStore {
  return {
    insertInstallation: (installation, tokenHash) =>
      db.transaction(async (client) => {
        const { id, integration, organization, target, space, site, status, configuration, spaceSelection, createdAt } = installation;
        const selection = spaceSelection === undefined ? null : JSON.stringify(spaceSelection);
        // Re-runnable after a lost connection: a row that did get in is not inserted twice.
        await client.query(
          'INSERT INTO installations (id, integration, organization, target, space, site, status, configuration, space_selection, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (id) DO NOTHING',
          [id, integration, organization, target, space ?? null, site ?? null, status, JSON.stringify(configuration), selection, createdAt],
        );
        await client.query('INSERT INTO tokens (token_hash, installation_id) VALUES ($1, $2) ON CONFLICT (token_hash) DO NOTHING', [tokenHash, id]);
        await notify(client, id);
      }),
    async getInstallation(id) {
      const { rows } = await db.query<InstallationRow>('SELECT * FROM installations WHERE id = $1', [id]);
      return rows[0] === undefined ? undefined : toInstallation(rows[0]);
    },
    async listInstallations(filter = {}) {
      const { sql, values } = installationListQuery(filter, (index) => `$${index}`);
      const { rows } = await db.query<InstallationRow>(sql, values);
      return rows.map(toInstallation);
    },
    editInstallation: (id, plan) =>
      db.transaction(async (client) => {
        const { rows } = await client.query<InstallationRow>('SELECT * FROM installations WHERE id = $1 FOR UPDATE', [id]);
        if (rows[0] === undefined) return undefined;
        const before = toInstallation(rows[0]);
        const { status, configuration } = plan(before);
        await client.query('UPDATE installations SET status = $1, configuration = $2 WHERE id = $3', [status, JSON.stringify(configuration), id]);
        await notify(client, id);
        return { before, after: { ...before, status, configuration } };
      }),
    findTokenOwner: async (tokenHash) => (await db.query<{ installation_id: string }>('SELECT installation_id FROM tokens WHERE token_hash = $1', [tokenHash])).rows[0]?.installation_id,
    deleteInstallation: (id) =>
      db.transaction(async (client) => {
        await client.query('DELETE FROM tokens WHERE installation_id = $1', [id]);
        const { rows } = await client.query<InstallationRow>('DELETE FROM installations WHERE id = $1 RETURNING *', [id]);
        await notify(client, id);
        return rows[0] === undefined ? undefined : toInstallation(rows[0]);
      }),
  };
}

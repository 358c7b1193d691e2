// Installations and their token hashes on PostgreSQL. Every write notifies the other hosts
// (NOTIFY inside the transaction, delivered at commit) so their caches drop the record and its
// tokens; edits lock the row (SELECT … FOR UPDATE) so two hosts' edits never interleave, and the
// organization installation a space or site installation goes under is chosen (or created) under
// an advisory lock per integration and organization, so two hosts never create two.

import type { Installation, InstallationStore, PlacedInstallation } from '../../installations/model.ts';
import { installationListQuery } from '../installation-filter.ts';
import type { Db, Queryable } from './connection.ts';
import { LOCK_INSTALLATION_TREE } from './migrations.ts';
import { CHANNEL, installationMessage } from './notifications.ts';
import { toInstallation, type InstallationRow } from '../installation-rows.ts';
import { writeOwedEvents } from './owed-events.ts';

const notify = (client: Queryable, id: string) =>
  client.query('SELECT pg_notify($1, $2)', [CHANNEL, installationMessage(id)]);

/** One record, inside a transaction (`client`) or on its own (`db`). */
async function read(client: Queryable | Db, id: string): Promise<Installation | undefined> {
  const query = (text: string, values: unknown[]) =>
    'pool' in client ? client.query<InstallationRow>(text, values) : client.query<InstallationRow>(text, values);
  const { rows } = await query('SELECT * FROM installations WHERE id = $1', [id]);
  return rows[0] === undefined ? undefined : toInstallation(rows[0]);
}

async function insert(client: Queryable, installation: Installation, tokenHash: string): Promise<void> {
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
  // Re-runnable after a lost connection: a row that did get in is not inserted twice.
  await client.query(
    'INSERT INTO installations (id, integration, organization, target, space, site, parent, status, ' +
      'configuration, external_ids, space_selection, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, ' +
      '$7, $8, $9, $10, $11, $12, $13) ON CONFLICT (id) DO NOTHING',
    [
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
    ],
  );
  await client.query(
    'INSERT INTO tokens (token_hash, installation_id) VALUES ($1, $2) ON CONFLICT (token_hash) DO NOTHING',
    [tokenHash, id],
  );
  await notify(client, id);
}

/**
 * The organization installation a child of (integration, organization) goes under, created from the candidate when
 * there is none.
 */
async function organizationFor(
  client: Queryable,
  integration: string,
  organization: string,
  candidate: Installation,
  candidateTokenHash: string,
): Promise<{ parent: Installation; parentCreated: boolean }> {
  await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [
    LOCK_INSTALLATION_TREE,
    `${integration} ${organization}`,
  ]);
  const { rows } = await client.query<InstallationRow>(
    'SELECT * FROM installations WHERE integration = $1 AND organization = ' +
      "$2 AND target = 'organization' ORDER BY created_at, id LIMIT 1",
    [integration, organization],
  );
  if (rows[0] !== undefined) return { parent: toInstallation(rows[0]), parentCreated: false };
  await insert(client, candidate, candidateTokenHash);
  return { parent: (await read(client, candidate.id))!, parentCreated: true };
}

export function createPostgresInstallationStore(db: Db): InstallationStore {
  return {
    insertInstallation: (installation, tokenHash, owed = []) =>
      db.transaction(async (client) => {
        await insert(client, installation, tokenHash);
        await writeOwedEvents(client, owed);
      }),
    insertChildInstallation: (child, childTokenHash, candidateParent, parentTokenHash, owe) =>
      db.transaction(async (client): Promise<PlacedInstallation> => {
        const { parent, parentCreated } = await organizationFor(
          client,
          child.integration,
          child.organization,
          candidateParent,
          parentTokenHash,
        );
        await insert(client, { ...child, parent: parent.id }, childTokenHash);
        const placed = { child: (await read(client, child.id))!, parent, parentCreated };
        if (owe !== undefined) await writeOwedEvents(client, owe(placed));
        return placed;
      }),
    adoptChildInstallation: (childId, candidateParent, parentTokenHash) =>
      db.transaction(async (client): Promise<PlacedInstallation | undefined> => {
        const { rows } = await client.query<InstallationRow>('SELECT * FROM installations WHERE id = $1 FOR UPDATE', [
          childId,
        ]);
        if (rows[0] === undefined) return undefined;
        const child = toInstallation(rows[0]);
        if (child.parent !== undefined) {
          const current = await read(client, child.parent);
          if (current !== undefined) return { child, parent: current, parentCreated: false };
        }
        const { parent, parentCreated } = await organizationFor(
          client,
          child.integration,
          child.organization,
          candidateParent,
          parentTokenHash,
        );
        await client.query('UPDATE installations SET parent = $1 WHERE id = $2', [parent.id, childId]);
        await notify(client, childId);
        return { child: (await read(client, childId))!, parent, parentCreated };
      }),
    getInstallation: (id) => read(db, id),
    async listInstallations(filter = {}) {
      const { sql, values } = installationListQuery(filter, (index) => `$${index}`);
      const { rows } = await db.query<InstallationRow>(sql, values);
      return rows.map(toInstallation);
    },
    editInstallation: (id, plan, owe) =>
      db.transaction(async (client) => {
        const { rows } = await client.query<InstallationRow>('SELECT * FROM installations WHERE id = $1 FOR UPDATE', [
          id,
        ]);
        if (rows[0] === undefined) return undefined;
        const before = toInstallation(rows[0]);
        const patch = plan(before);
        const externalIds = patch.externalIds ?? before.externalIds ?? [];
        const updatedAt = patch.updatedAt ?? before.updatedAt ?? before.createdAt;
        await client.query(
          'UPDATE installations SET status = $1, configuration = $2, external_ids = $3, updated_at = $4 WHERE id = $5',
          [patch.status, JSON.stringify(patch.configuration), JSON.stringify(externalIds), updatedAt, id],
        );
        await notify(client, id);
        const edit = {
          before,
          after: { ...before, status: patch.status, configuration: patch.configuration, externalIds, updatedAt },
        };
        if (owe !== undefined) await writeOwedEvents(client, owe(edit));
        return edit;
      }),
    findTokenOwner: async (tokenHash) =>
      (
        await db.query<{ installation_id: string }>('SELECT installation_id FROM tokens WHERE token_hash = $1', [
          tokenHash,
        ])
      ).rows[0]?.installation_id,
    deleteInstallation: (id) =>
      db.transaction(async (client) => {
        // The space and site installations under it go with it, and every host forgets them too.
        const children = (
          await client.query<{ id: string }>('SELECT id FROM installations WHERE parent = $1', [id])
        ).rows.map((row) => row.id);
        await client.query('DELETE FROM tokens WHERE installation_id = $1 OR installation_id = ANY($2::text[])', [
          id,
          children,
        ]);
        await client.query('DELETE FROM owed_events WHERE installation_id = $1 OR installation_id = ANY($2::text[])', [
          id,
          children,
        ]);
        await client.query('DELETE FROM installations WHERE parent = $1', [id]);
        const { rows } = await client.query<InstallationRow>('DELETE FROM installations WHERE id = $1 RETURNING *', [
          id,
        ]);
        for (const child of children) await notify(client, child);
        await notify(client, id);
        return rows[0] === undefined ? undefined : toInstallation(rows[0]);
      }),
  };
}

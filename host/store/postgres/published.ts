// Published integrations and publisher tokens on PostgreSQL: immutable version rows numbered under
// an advisory lock per name, the current version of each moved with the revision in one
// transaction that notifies every host (`published:<integration>` at commit); publishers by id.

import { HostError } from '../../common/errors.ts';
import type { PublisherStore, VersionStore } from '../../publish/model.ts';
import {
  otherOrganization,
  PUBLISHER_COLUMNS,
  SUMMARY_COLUMNS,
  toPublisher,
  toSummary,
  toVersion,
  type PublisherRow,
  type VersionRow,
  type VersionSummaryRow,
} from '../version-rows.ts';
import type { Db, Queryable } from './connection.ts';
import { LOCK_PUBLISH } from './migrations.ts';
import { CHANNEL, publishedMessage } from './notifications.ts';

const SET_CURRENT = `INSERT INTO integration_current (integration, version, changed_by, changed_at)
  VALUES ($1, $2, $3, $4) ON CONFLICT (integration) DO UPDATE SET version = excluded.version,
  changed_by = excluded.changed_by, changed_at = excluded.changed_at`;

const changed = async (client: Queryable, integration: string): Promise<void> => {
  await client.query('UPDATE publish_revision SET revision = revision + 1 WHERE id = 1');
  await client.query('SELECT pg_notify($1, $2)', [CHANNEL, publishedMessage(integration)]);
};

export function createPostgresVersionStore(db: Db): VersionStore & { announce(integration: string): void } {
  const listeners = new Set<(integration: string) => void>();
  return {
    add: (version, changedAt) =>
      db.transaction(async (client) => {
        // Two hosts publishing the same name at once take numbers one after the other.
        await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [LOCK_PUBLISH, version.integration]);
        const { rows: owners } = await client.query<{ organization: string }>(
          'SELECT organization FROM integration_versions WHERE integration = $1 ORDER BY version LIMIT 1',
          [version.integration],
        );
        const owner = owners[0]?.organization;
        if (owner !== undefined && owner !== version.organization)
          throw new HostError(
            'ERR_PUBLISHER_FORBIDDEN',
            otherOrganization(version.integration, owner, version.organization),
          );
        const { rows } = await client.query<{ next: number }>(
          'SELECT COALESCE(MAX(version), 0) + 1 AS next FROM integration_versions WHERE integration = $1',
          [version.integration],
        );
        const number = Number(rows[0].next);
        await client.query(
          `INSERT INTO integration_versions (${SUMMARY_COLUMNS}, archive, bundle, source_map)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
          [
            version.integration,
            number,
            version.organization,
            version.contentHash,
            version.bundleHash,
            version.files,
            version.bytes,
            version.publishedBy,
            version.publishedAt,
            Buffer.from(version.archive),
            version.bundle,
            version.sourceMap,
          ],
        );
        await client.query(SET_CURRENT, [version.integration, number, version.publishedBy, changedAt]);
        await changed(client, version.integration);
        const { archive: _a, bundle: _b, sourceMap: _s, ...summary } = version;
        return { ...summary, version: number, current: true };
      }),
    async list(integration) {
      const columns = SUMMARY_COLUMNS.split(', ')
        .map((column) => `v.${column}`)
        .join(', ');
      const { rows } = await db.query<VersionSummaryRow>(
        `SELECT ${columns}, (c.version IS NOT DISTINCT FROM v.version) AS current
         FROM integration_versions v LEFT JOIN integration_current c ON c.integration = v.integration
         WHERE v.integration = $1 ORDER BY v.version DESC`,
        [integration],
      );
      return rows.map(toSummary);
    },
    async get(integration, version) {
      const { rows } = await db.query<VersionRow>(
        'SELECT * FROM integration_versions WHERE integration = $1 AND version = $2',
        [integration, version],
      );
      return rows[0] === undefined ? undefined : toVersion(rows[0]);
    },
    async currents() {
      const { rows } = await db.query<{ integration: string; version: number }>(
        'SELECT integration, version FROM integration_current ORDER BY integration',
      );
      return rows.map((row) => ({ integration: row.integration, version: Number(row.version) }));
    },
    setCurrent: (integration, version, by, at) =>
      db.transaction(async (client) => {
        const { rowCount } = await client.query(
          'SELECT 1 FROM integration_versions WHERE integration = $1 AND version = $2',
          [integration, version],
        );
        if ((rowCount ?? 0) === 0) return false;
        await client.query(SET_CURRENT, [integration, version, by, at]);
        await changed(client, integration);
        return true;
      }),
    revision: async () =>
      Number(
        (await db.query<{ revision: string }>('SELECT revision FROM publish_revision WHERE id = 1')).rows[0]
          ?.revision ?? 0,
      ),
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    announce(integration) {
      for (const listener of listeners) listener(integration);
    },
  };
}

export function createPostgresPublisherStore(db: Db): PublisherStore {
  return {
    async add(record) {
      await db.query(`INSERT INTO publishers (${PUBLISHER_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6)`, [
        record.id,
        record.organization,
        record.label,
        record.tokenHash,
        record.createdAt,
        record.revokedAt,
      ]);
    },
    async find(id) {
      const { rows } = await db.query<PublisherRow>(`SELECT ${PUBLISHER_COLUMNS} FROM publishers WHERE id = $1`, [id]);
      return rows[0] === undefined ? undefined : toPublisher(rows[0]);
    },
    async list() {
      const { rows } = await db.query<PublisherRow>(
        `SELECT ${PUBLISHER_COLUMNS} FROM publishers ORDER BY created_at, id`,
      );
      return rows.map(toPublisher);
    },
    async revoke(id, at) {
      const { rowCount } = await db.query(
        'UPDATE publishers SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL',
        [at, id],
      );
      return (rowCount ?? 0) > 0;
    },
  };
}

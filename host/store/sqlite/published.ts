// Published integrations and publisher tokens on node:sqlite: immutable version rows, the current
// version of each (moved with the revision in one transaction), publishers by id. Owns those
// tables only; never decides who may publish (host/publish/ does).

import type { DatabaseSync } from 'node:sqlite';
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
import { inTransaction } from './transaction.ts';

export function createSqliteVersionStore(db: DatabaseSync): VersionStore {
  const statements = {
    owner: db.prepare('SELECT organization FROM integration_versions WHERE integration = ? ORDER BY version LIMIT 1'),
    next: db.prepare('SELECT COALESCE(MAX(version), 0) + 1 AS next FROM integration_versions WHERE integration = ?'),
    insert: db.prepare(
      `INSERT INTO integration_versions (${SUMMARY_COLUMNS}, archive, bundle, source_map)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    setCurrent: db.prepare(
      `INSERT INTO integration_current (integration, version, changed_by, changed_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (integration) DO UPDATE SET version = excluded.version, changed_by = excluded.changed_by,
         changed_at = excluded.changed_at`,
    ),
    list: db.prepare(
      `SELECT ${SUMMARY_COLUMNS.split(', ')
        .map((column) => `v.${column}`)
        .join(', ')}, (c.version = v.version) AS current
       FROM integration_versions v LEFT JOIN integration_current c ON c.integration = v.integration
       WHERE v.integration = ? ORDER BY v.version DESC`,
    ),
    get: db.prepare('SELECT * FROM integration_versions WHERE integration = ? AND version = ?'),
    exists: db.prepare('SELECT 1 AS found FROM integration_versions WHERE integration = ? AND version = ?'),
    currents: db.prepare('SELECT integration, version FROM integration_current ORDER BY integration'),
    bump: db.prepare('UPDATE publish_revision SET revision = revision + 1 WHERE id = 1'),
    revision: db.prepare('SELECT revision FROM publish_revision WHERE id = 1'),
  };
  return {
    async add(version, changedAt) {
      return inTransaction(db, () => {
        const owner = (statements.owner.get(version.integration) as { organization: string } | undefined)?.organization;
        if (owner !== undefined && owner !== version.organization)
          throw new HostError(
            'ERR_PUBLISHER_FORBIDDEN',
            otherOrganization(version.integration, owner, version.organization),
          );
        const number = Number((statements.next.get(version.integration) as { next: number }).next);
        statements.insert.run(
          version.integration,
          number,
          version.organization,
          version.contentHash,
          version.bundleHash,
          version.files,
          version.bytes,
          version.publishedBy,
          version.publishedAt,
          version.archive,
          version.bundle,
          version.sourceMap,
        );
        statements.setCurrent.run(version.integration, number, version.publishedBy, changedAt);
        statements.bump.run();
        const { archive: _a, bundle: _b, sourceMap: _s, ...summary } = version;
        return { ...summary, version: number, current: true };
      });
    },
    async list(integration) {
      return (statements.list.all(integration) as unknown as VersionSummaryRow[]).map(toSummary);
    },
    async get(integration, version) {
      const row = statements.get.get(integration, version) as VersionRow | undefined;
      return row === undefined ? undefined : toVersion(row);
    },
    async currents() {
      return (statements.currents.all() as { integration: string; version: number }[]).map((row) => ({
        integration: row.integration,
        version: Number(row.version),
      }));
    },
    async setCurrent(integration, version, by, at) {
      return inTransaction(db, () => {
        if (statements.exists.get(integration, version) === undefined) return false;
        statements.setCurrent.run(integration, version, by, at);
        statements.bump.run();
        return true;
      });
    },
    async revision() {
      return Number((statements.revision.get() as { revision: number | bigint } | undefined)?.revision ?? 0);
    },
  };
}

export function createSqlitePublisherStore(db: DatabaseSync): PublisherStore {
  const statements = {
    insert: db.prepare(`INSERT INTO publishers (${PUBLISHER_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)`),
    find: db.prepare(`SELECT ${PUBLISHER_COLUMNS} FROM publishers WHERE id = ?`),
    list: db.prepare(`SELECT ${PUBLISHER_COLUMNS} FROM publishers ORDER BY created_at, id`),
    revoke: db.prepare('UPDATE publishers SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL'),
  };
  return {
    async add(record) {
      statements.insert.run(
        record.id,
        record.organization,
        record.label,
        record.tokenHash,
        record.createdAt,
        record.revokedAt,
      );
    },
    async find(id) {
      const row = statements.find.get(id) as PublisherRow | undefined;
      return row === undefined ? undefined : toPublisher(row);
    },
    async list() {
      return (statements.list.all() as unknown as PublisherRow[]).map(toPublisher);
    },
    async revoke(id, at) {
      return Number(statements.revoke.run(at, id).changes) > 0;
    },
  };
}

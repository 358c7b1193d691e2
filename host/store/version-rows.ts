// The rows of published versions and publishers as both databases return them, and their records.
// Pure conversion; the two publishing stores are its only users.

import type { PublishedVersion, PublisherRecord, VersionSummary } from '../publish/model.ts';

export const SUMMARY_COLUMNS =
  'integration, version, organization, content_hash, bundle_hash, files, bytes, published_by, published_at';

export interface VersionSummaryRow {
  integration: string;
  version: number | string;
  organization: string;
  content_hash: string;
  bundle_hash: string;
  files: number | string;
  bytes: number | string;
  published_by: string;
  published_at: string;
  current?: number | boolean | null;
}

export interface VersionRow extends VersionSummaryRow {
  archive: Uint8Array;
  bundle: string;
  source_map: string | null;
}

export function toSummary(row: VersionSummaryRow): VersionSummary {
  return {
    integration: row.integration,
    version: Number(row.version),
    organization: row.organization,
    contentHash: row.content_hash,
    bundleHash: row.bundle_hash,
    files: Number(row.files),
    bytes: Number(row.bytes),
    publishedBy: row.published_by,
    publishedAt: row.published_at,
    current: row.current === true || Number(row.current) === 1,
  };
}

export function toVersion(row: VersionRow): PublishedVersion {
  const { current: _current, ...summary } = toSummary(row);
  return { ...summary, archive: new Uint8Array(row.archive), bundle: row.bundle, sourceMap: row.source_map };
}

export const PUBLISHER_COLUMNS = 'id, organization, label, token_hash, created_at, revoked_at';

export interface PublisherRow {
  id: string;
  organization: string;
  label: string;
  token_hash: string;
  created_at: string;
  revoked_at: string | null;
}

export const toPublisher = (row: PublisherRow): PublisherRecord => ({
  id: row.id,
  organization: row.organization,
  label: row.label,
  tokenHash: row.token_hash,
  createdAt: row.created_at,
  revokedAt: row.revoked_at,
});

/** The refusal when a name's earlier versions belong to another organization (both stores). */
export const otherOrganization = (integration: string, owner: string, organization: string): string =>
  `"${integration}" belongs to organization "${owner}" (its earlier versions); a version for organization ` +
  `"${organization}" cannot be published under that name: rename the integration; nothing was stored`;

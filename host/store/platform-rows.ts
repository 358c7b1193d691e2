// The platform's space, page, revision and Git request rows and their mapping to records (shared
// by both stores), with how many Git requests a space keeps. Pure data and conversion.

import type {
  GitRepositoryRequest,
  GitRequestRecord,
  PageRecord,
  RevisionPageRef,
  SpaceRecord,
  SpaceRevision,
} from '../platform-data/records.ts';

/** Git sync requests kept per space: a record of requests, so the oldest go first. */
export const MAX_GIT_SYNCS_PER_SPACE = 1_000;

export interface SpaceRow {
  id: string;
  organization: string;
  title: string;
  visibility: string;
  description: string;
  metadata: string;
}

export interface PageRow {
  space: string;
  id: string;
  title: string;
  markdown: string;
  revision: number;
  updated_at: string;
}

export function toSpace(row: SpaceRow): SpaceRecord {
  return {
    id: row.id,
    organization: row.organization,
    title: row.title,
    visibility: row.visibility as SpaceRecord['visibility'],
    description: row.description,
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
  };
}

export function toPage(row: PageRow): PageRecord {
  return {
    id: row.id,
    spaceId: row.space,
    title: row.title,
    markdown: row.markdown,
    revision: row.revision,
    updatedAt: row.updated_at,
  };
}

export interface RevisionRow {
  space: string;
  id: string;
  parent: string | null;
  /** JSON `[[pageId, version], …]` in page order. */
  pages: string;
  created_at: string;
}

export function revisionPagesJson(pages: readonly RevisionPageRef[]): string {
  return JSON.stringify(pages.map((page) => [page.id, page.revision]));
}

export function toRevision(row: RevisionRow): SpaceRevision {
  const pages = (JSON.parse(row.pages) as [string, number][]).map(([id, revision]) => ({
    id,
    revision: Number(revision),
  }));
  return { id: row.id, spaceId: row.space, parent: row.parent, pages, createdAt: row.created_at };
}

export interface GitRequestRow {
  id: string;
  space: string;
  installation_id: string;
  status: string;
  created_at: string;
  kind: string;
  request: string | null;
}

export function toGitRequest(row: GitRequestRow): GitRequestRecord {
  return {
    id: row.id,
    spaceId: row.space,
    installationId: row.installation_id,
    status: 'queued',
    createdAt: row.created_at,
    kind: row.kind as GitRequestRecord['kind'],
    request: row.request === null ? null : (JSON.parse(row.request) as GitRepositoryRequest),
  };
}

// The platform's space and page rows and their mapping to records (shared by both stores), with
// how many git sync requests a space keeps. Pure data and conversion.

import type { PageRecord, SpaceRecord } from '../platform/records.ts';

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
  return { id: row.id, spaceId: row.space, title: row.title, markdown: row.markdown, revision: row.revision, updatedAt: row.updated_at };
}

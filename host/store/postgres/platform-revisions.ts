// PostgreSQL records of space revisions (docs/platform-api.md#revisions), as SQLite's: one recorded
// with each page write inside its transaction (the space's row locked, so writers on every host
// take turns), every space's first at startup, pruned to the newest MAX_REVISIONS_PER_SPACE with
// the superseded page versions only they held. Storage only.

import type { PageRecord, PlatformStore, RevisionPageRef } from '../../platform-data/records.ts';
import { MAX_REVISIONS_PER_SPACE, revisionIdOf, versionsFreed } from '../../platform-data/revisions.ts';
import { revisionPagesJson, toPage, toRevision, type PageRow, type RevisionRow } from '../platform-rows.ts';
import type { Db, Queryable } from './connection.ts';

/** Below this many versions asked for, each is read alone; above, the space's pages are read at once. */
const SINGLE_READS_UP_TO = 8;

type SeqRevisionRow = RevisionRow & { seq: number };

/** Takes the space's row lock until the transaction ends: page writes and revisions of one space queue behind it. */
export async function lockSpace(client: Queryable, spaceId: string): Promise<void> {
  await client.query('SELECT 1 FROM spaces WHERE id = $1 FOR UPDATE', [spaceId]);
}

/** Keeps a page's current version before a write replaces it (inside the write's transaction). */
export async function keepPageVersion(client: Queryable, spaceId: string, pageId: string): Promise<void> {
  await client.query(
    `INSERT INTO page_versions (space, page, revision, title, markdown, updated_at)
     SELECT space, id, revision, title, markdown, updated_at FROM pages WHERE space = $1 AND id = $2 ON CONFLICT DO
       NOTHING`,
    [spaceId, pageId],
  );
}

async function prune(client: Queryable, spaceId: string): Promise<void> {
  const { n } = (
    await client.query<{ n: number }>('SELECT COUNT(*)::int AS n FROM space_revisions WHERE space = $1', [spaceId])
  ).rows[0];
  const excess = n - MAX_REVISIONS_PER_SPACE;
  if (excess <= 0) return;
  const rows = (
    await client.query<SeqRevisionRow>('SELECT * FROM space_revisions WHERE space = $1 ORDER BY seq LIMIT $2', [
      spaceId,
      excess + 1,
    ])
  ).rows;
  const oldestKept = rows[rows.length - 1];
  await client.query('DELETE FROM space_revisions WHERE space = $1 AND seq < $2', [spaceId, oldestKept.seq]);
  for (const freed of versionsFreed(rows.slice(0, -1).map(toRevision), toRevision(oldestKept))) {
    await client.query('DELETE FROM page_versions WHERE space = $1 AND page = $2 AND revision < $3', [
      spaceId,
      freed.id,
      freed.revision,
    ]);
  }
}

/**
 * Records the space's revision as its pages are now, unless that is already its newest (the space locked by the
 * caller).
 */
export async function recordRevision(client: Queryable, spaceId: string, now: string): Promise<void> {
  const pages = (
    await client.query<RevisionPageRef>('SELECT id, revision FROM pages WHERE space = $1 ORDER BY seq', [spaceId])
  ).rows;
  const id = revisionIdOf(pages);
  const newest = (
    await client.query<RevisionRow>('SELECT * FROM space_revisions WHERE space = $1 ORDER BY seq DESC LIMIT 1', [
      spaceId,
    ])
  ).rows[0];
  if (newest?.id === id) return;
  await client.query(
    'INSERT INTO space_revisions (space, id, parent, pages, created_at) ' +
      'VALUES ($1, $2, $3, $4, $5) ON CONFLICT (space, id) DO NOTHING',
    [spaceId, id, newest?.id ?? null, revisionPagesJson(pages), now],
  );
  await prune(client, spaceId);
}

/**
 * Records a revision for every space whose pages are not its newest revision (at startup, inside the seed's
 * transaction).
 */
export async function reconcileRevisions(client: Queryable, now: string): Promise<void> {
  const spaces = (await client.query<{ id: string }>('SELECT id FROM spaces ORDER BY id FOR UPDATE')).rows;
  for (const { id } of spaces) await recordRevision(client, id, now);
}

export function createPostgresRevisionRecords(
  db: Db,
): Pick<PlatformStore, 'getRevision' | 'getCurrentRevision' | 'getPageVersions'> {
  async function versionOf(
    spaceId: string,
    ref: RevisionPageRef,
    current: PageRow | undefined,
  ): Promise<PageRecord | undefined> {
    if (current !== undefined && current.revision === ref.revision) return toPage(current);
    const row = (
      await db.query<PageRow>(
        'SELECT space, page AS id, title, markdown, revision, updated_at FROM ' +
          'page_versions WHERE space = $1 AND page = $2 AND revision = $3',
        [spaceId, ref.id, ref.revision],
      )
    ).rows[0];
    return row === undefined ? undefined : toPage(row);
  }

  return {
    async getRevision(spaceId, revisionId) {
      const row = (
        await db.query<RevisionRow>('SELECT * FROM space_revisions WHERE space = $1 AND id = $2', [spaceId, revisionId])
      ).rows[0];
      return row === undefined ? undefined : toRevision(row);
    },
    async getCurrentRevision(spaceId) {
      const row = (
        await db.query<RevisionRow>('SELECT * FROM space_revisions WHERE space = $1 ORDER BY seq DESC LIMIT 1', [
          spaceId,
        ])
      ).rows[0];
      return row === undefined ? undefined : toRevision(row);
    },
    async getPageVersions(spaceId, refs) {
      const rows =
        refs.length <= SINGLE_READS_UP_TO
          ? (
              await db.query<PageRow>('SELECT * FROM pages WHERE space = $1 AND id = ANY($2)', [
                spaceId,
                refs.map((ref) => ref.id),
              ])
            ).rows
          : (await db.query<PageRow>('SELECT * FROM pages WHERE space = $1', [spaceId])).rows;
      const current = new Map(rows.map((row) => [row.id, row]));
      const versions: PageRecord[] = [];
      for (const ref of refs) {
        const version = await versionOf(spaceId, ref, current.get(ref.id));
        if (version !== undefined) versions.push(version);
      }
      return versions;
    },
  };
}

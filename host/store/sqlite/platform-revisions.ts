// node:sqlite records of space revisions (docs/platform-api.md#revisions): one recorded with each
// page write (inside its transaction), every space's first at startup, pruned to the newest
// MAX_REVISIONS_PER_SPACE with the superseded page versions only they held. Storage only.

import type { DatabaseSync } from 'node:sqlite';
import type { PageRecord, PlatformStore, RevisionPageRef } from '../../platform-data/records.ts';
import { MAX_REVISIONS_PER_SPACE, revisionIdOf, versionsFreed } from '../../platform-data/revisions.ts';
import { revisionPagesJson, toPage, toRevision, type PageRow, type RevisionRow } from '../platform-rows.ts';

/** Below this many versions asked for, each is read alone; above, the space's pages are read at once. */
const SINGLE_READS_UP_TO = 8;

export interface SqliteRevisions {
  /** Records the space's revision as its pages are now, unless that is already its newest. Inside a transaction. */
  record(spaceId: string, now: string): void;
  /** Keeps a page's current version before a write replaces it. Inside the write's transaction. */
  keepVersion(spaceId: string, pageId: string): void;
  /** Records a revision for every space whose pages are not its newest revision (at startup). */
  reconcile(now: string): void;
  reads: Pick<PlatformStore, 'getRevision' | 'getCurrentRevision' | 'getPageVersions'>;
}

type SeqRevisionRow = RevisionRow & { seq: number };

export function createRevisionRecords(db: DatabaseSync): SqliteRevisions {
  const statements = {
    spaces: db.prepare('SELECT id FROM spaces ORDER BY id'),
    pageRefs: db.prepare('SELECT id, revision FROM pages WHERE space = ? ORDER BY rowid'),
    newest: db.prepare('SELECT * FROM space_revisions WHERE space = ? ORDER BY seq DESC LIMIT 1'),
    insert: db.prepare(
      'INSERT INTO space_revisions (space, id, parent, pages, created_at) ' +
        'VALUES (?, ?, ?, ?, ?) ON CONFLICT (space, id) DO NOTHING',
    ),
    count: db.prepare('SELECT COUNT(*) AS n FROM space_revisions WHERE space = ?'),
    oldest: db.prepare('SELECT * FROM space_revisions WHERE space = ? ORDER BY seq LIMIT ?'),
    deleteBelow: db.prepare('DELETE FROM space_revisions WHERE space = ? AND seq < ?'),
    freeVersions: db.prepare('DELETE FROM page_versions WHERE space = ? AND page = ? AND revision < ?'),
    keepVersion: db.prepare(
      'INSERT OR IGNORE INTO page_versions (space, page, revision, title, markdown, updated_at) SELECT ' +
        'space, id, revision, title, markdown, updated_at FROM pages WHERE space = ? AND id = ?',
    ),
    byId: db.prepare('SELECT * FROM space_revisions WHERE space = ? AND id = ?'),
    page: db.prepare('SELECT * FROM pages WHERE space = ? AND id = ?'),
    pages: db.prepare('SELECT * FROM pages WHERE space = ?'),
    version: db.prepare(
      'SELECT space, page AS id, title, markdown, revision, updated_at FROM ' +
        'page_versions WHERE space = ? AND page = ? AND revision = ?',
    ),
  };

  function prune(spaceId: string): void {
    const { n } = statements.count.get(spaceId) as { n: number };
    const excess = Number(n) - MAX_REVISIONS_PER_SPACE;
    if (excess <= 0) return;
    const rows = statements.oldest.all(spaceId, excess + 1) as unknown as SeqRevisionRow[];
    const oldestKept = rows[rows.length - 1];
    statements.deleteBelow.run(spaceId, oldestKept.seq);
    for (const freed of versionsFreed(rows.slice(0, -1).map(toRevision), toRevision(oldestKept)))
      statements.freeVersions.run(spaceId, freed.id, freed.revision);
  }

  function record(spaceId: string, now: string): void {
    const pages = statements.pageRefs.all(spaceId) as unknown as RevisionPageRef[];
    const id = revisionIdOf(pages);
    const newest = statements.newest.get(spaceId) as RevisionRow | undefined;
    if (newest?.id === id) return;
    statements.insert.run(spaceId, id, newest?.id ?? null, revisionPagesJson(pages), now);
    prune(spaceId);
  }

  function versionOf(spaceId: string, ref: RevisionPageRef, current: PageRow | undefined): PageRecord | undefined {
    if (current !== undefined && current.revision === ref.revision) return toPage(current);
    const row = statements.version.get(spaceId, ref.id, ref.revision) as PageRow | undefined;
    return row === undefined ? undefined : toPage(row);
  }

  return {
    record,
    keepVersion: (spaceId, pageId) => void statements.keepVersion.run(spaceId, pageId),
    reconcile(now) {
      for (const { id } of statements.spaces.all() as unknown as { id: string }[]) record(id, now);
    },
    reads: {
      async getRevision(spaceId, revisionId) {
        const row = statements.byId.get(spaceId, revisionId) as RevisionRow | undefined;
        return row === undefined ? undefined : toRevision(row);
      },
      async getCurrentRevision(spaceId) {
        const row = statements.newest.get(spaceId) as RevisionRow | undefined;
        return row === undefined ? undefined : toRevision(row);
      },
      async getPageVersions(spaceId, refs) {
        const current =
          refs.length <= SINGLE_READS_UP_TO
            ? new Map(refs.map((ref) => [ref.id, statements.page.get(spaceId, ref.id) as PageRow | undefined]))
            : new Map((statements.pages.all(spaceId) as unknown as PageRow[]).map((row) => [row.id, row]));
        return refs.flatMap((ref) => versionOf(spaceId, ref, current.get(ref.id)) ?? []);
      },
    },
  };
}

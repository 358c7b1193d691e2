// node:sqlite records of spaces: space metadata, pages (each write recording the space's revision,
// platform-revisions.ts), and the Git syncs, imports and exports integrations ask for. Plain reads
// and writes; never checks who is asking.

import { randomUUID } from 'node:crypto';
import type { DatabaseSync } from 'node:sqlite';
import type { GitRequestRecord, GitSyncRecord, PageSummary, PlatformStore } from '../../platform-data/records.ts';
import {
  MAX_GIT_SYNCS_PER_SPACE,
  toGitRequest,
  toPage,
  toSpace,
  type GitRequestRow,
  type PageRow,
  type SpaceRow,
} from '../platform-rows.ts';
import type { SqliteRevisions } from './platform-revisions.ts';
import { inTransaction } from './transaction.ts';

type SpaceRecords = Pick<
  PlatformStore,
  | 'getSpace'
  | 'updateSpace'
  | 'listPages'
  | 'getPage'
  | 'putPage'
  | 'recordGitSync'
  | 'recordGitRequest'
  | 'listGitRequests'
  | 'spaceContentUsage'
>;

export function createSpaceRecords(db: DatabaseSync, revisions: SqliteRevisions): SpaceRecords {
  const statements = {
    getSpace: db.prepare('SELECT * FROM spaces WHERE id = ?'),
    updateSpace: db.prepare(
      'UPDATE spaces SET title = COALESCE($title, title), description = COALESCE($description, ' +
        'description), visibility = COALESCE($visibility, visibility) WHERE id = $id RETURNING *',
    ),
    listPages: db.prepare('SELECT id, title, revision, updated_at FROM pages WHERE space = ? ORDER BY rowid'),
    usage: db.prepare(
      'SELECT COUNT(*) AS pages, COALESCE(SUM(LENGTH(markdown)), 0) AS chars FROM pages WHERE space = ?',
    ),
    pruneGitSyncs: db.prepare(
      'DELETE FROM git_syncs WHERE space = $space AND rowid NOT IN (SELECT rowid ' +
        'FROM git_syncs WHERE space = $space ORDER BY rowid DESC LIMIT $keep)',
    ),
    getPage: db.prepare('SELECT * FROM pages WHERE space = ? AND id = ?'),
    // One statement, so concurrent writers can never both create revision 1 of the same page.
    putPage: db.prepare(`
      INSERT INTO pages (space, id, title, markdown, revision, updated_at) VALUES ($space, $id, COALESCE($title, $id),
        $markdown, 1, $now)
      ON CONFLICT (space, id) DO UPDATE SET
        title = COALESCE($title, pages.title), markdown = excluded.markdown, revision = pages.revision + 1, updated_at =
          excluded.updated_at
      RETURNING *`),
    insertGitSync: db.prepare(
      'INSERT INTO git_syncs (id, space, installation_id, status, ' +
        'created_at, kind, request) VALUES (?, ?, ?, ?, ?, ?, ?)',
    ),
    listGitRequests: db.prepare('SELECT * FROM git_syncs WHERE space = ? ORDER BY rowid DESC'),
  };

  function insertGitRequest(record: GitRequestRecord): void {
    inTransaction(db, () => {
      statements.insertGitSync.run(
        record.id,
        record.spaceId,
        record.installationId,
        record.status,
        record.createdAt,
        record.kind,
        record.request === null ? null : JSON.stringify(record.request),
      );
      statements.pruneGitSyncs.run({ space: record.spaceId, keep: MAX_GIT_SYNCS_PER_SPACE });
    });
  }

  return {
    async getSpace(id) {
      const row = statements.getSpace.get(id) as SpaceRow | undefined;
      return row ? toSpace(row) : undefined;
    },
    async updateSpace(id, patch) {
      const row = statements.updateSpace.get({
        id,
        title: patch.title ?? null,
        description: patch.description ?? null,
        visibility: patch.visibility ?? null,
      }) as SpaceRow | undefined;
      return row ? toSpace(row) : undefined;
    },
    async listPages(spaceId) {
      const rows = statements.listPages.all(spaceId) as unknown as Omit<PageRow, 'space' | 'markdown'>[];
      return rows.map(
        (row): PageSummary => ({ id: row.id, title: row.title, revision: row.revision, updatedAt: row.updated_at }),
      );
    },
    async getPage(spaceId, pageId) {
      const row = statements.getPage.get(spaceId, pageId) as PageRow | undefined;
      return row ? toPage(row) : undefined;
    },
    async putPage(spaceId, pageId, input) {
      const now = new Date().toISOString();
      // The page and the space revision it makes are written together, or neither is.
      const row = inTransaction(db, () => {
        revisions.keepVersion(spaceId, pageId);
        const written = statements.putPage.get({
          space: spaceId,
          id: pageId,
          title: input.title ?? null,
          markdown: input.markdown,
          now,
        }) as unknown as PageRow;
        revisions.record(spaceId, now);
        return written;
      });
      return { page: toPage(row), created: row.revision === 1 };
    },
    async recordGitSync(spaceId, installationId) {
      const record: GitSyncRecord = {
        id: `sync_${randomUUID().replaceAll('-', '')}`,
        spaceId,
        installationId,
        status: 'queued',
        createdAt: new Date().toISOString(),
      };
      insertGitRequest({ ...record, kind: 'sync', request: null });
      return record;
    },
    async recordGitRequest(spaceId, installationId, kind, request) {
      const record: GitRequestRecord = {
        id: `${kind}_${randomUUID().replaceAll('-', '')}`,
        spaceId,
        installationId,
        status: 'queued',
        createdAt: new Date().toISOString(),
        kind,
        request,
      };
      insertGitRequest(record);
      return record;
    },
    async listGitRequests(spaceId) {
      return (statements.listGitRequests.all(spaceId) as unknown as GitRequestRow[]).map(toGitRequest);
    },
    async spaceContentUsage(spaceId) {
      const row = statements.usage.get(spaceId) as { pages: number; chars: number };
      return { pages: Number(row.pages), markdownChars: Number(row.chars) };
    },
  };
}

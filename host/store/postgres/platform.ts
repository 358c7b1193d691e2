// The platform store on PostgreSQL: spaces with pages, sites with views and feedback, OpenAPI
// specs, adaptive claims, space revisions (platform-revisions.ts), and the records integrations
// write. Seeding inserts only missing rows, under an advisory lock, so hosts starting together seed
// once and never overwrite API writes.
// Storage only; authorization is platform-api's.

import { randomUUID } from 'node:crypto';
import type { PlatformData } from '../../platform-data/data.ts';
import {
  createResourceDirectory,
  type ConversationRecord,
  type GitRequestRecord,
  type GitSyncRecord,
  type PlatformStore,
} from '../../platform-data/records.ts';
import type { Db, Queryable } from './connection.ts';
import { LOCK_NAMESPACE, LOCK_SEED } from './migrations.ts';
import {
  MAX_GIT_SYNCS_PER_SPACE,
  toGitRequest,
  toPage,
  toSpace,
  type GitRequestRow,
  type PageRow,
  type SpaceRow,
} from '../platform-rows.ts';
import {
  createPostgresRevisionRecords,
  keepPageVersion,
  lockSpace,
  reconcileRevisions,
  recordRevision,
} from './platform-revisions.ts';

async function seed(client: Queryable, data: PlatformData): Promise<void> {
  const now = new Date().toISOString();
  for (const org of data.organizations) {
    await client.query('INSERT INTO organizations (id, subdomain, title) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [
      org.id,
      org.subdomain,
      org.title,
    ]);
    for (const m of org.members)
      await client.query(
        'INSERT INTO members (organization, id, email, role) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING',
        [org.id, m.id, m.email, m.role],
      );
  }
  for (const s of data.spaces) {
    await client.query(
      'INSERT INTO spaces (id, organization, title, visibility, description, ' +
        'metadata) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING',
      [s.id, s.organization, s.title, s.visibility, s.description, JSON.stringify(s.metadata)],
    );
    for (const p of s.pages)
      await client.query(
        'INSERT INTO pages (space, id, title, markdown, revision, ' +
          'updated_at) VALUES ($1, $2, $3, $4, 1, $5) ON CONFLICT DO NOTHING',
        [s.id, p.id, p.title, p.markdown, now],
      );
  }
  for (const site of data.sites) {
    await client.query('INSERT INTO sites (id, organization, title) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [
      site.id,
      site.organization,
      site.title,
    ]);
    for (const [position, space] of site.spaces.entries())
      await client.query('INSERT INTO site_spaces (site, space, position) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [
        site.id,
        space,
        position,
      ]);
    for (const v of site.views) {
      await client.query(
        'INSERT INTO site_views (id, site, space, page, url, visitor_id, ' +
          'viewed_at) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING',
        [v.id, site.id, v.spaceId ?? null, v.pageId ?? null, v.url, v.visitorId, v.viewedAt],
      );
    }
    for (const f of site.feedback) {
      await client.query(
        'INSERT INTO page_feedback (id, site, space, page, rating, comment, ' +
          'created_at) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING',
        [f.id, site.id, f.spaceId, f.pageId, f.rating, f.comment, f.createdAt],
      );
    }
    if (site.openapi !== undefined) {
      const [spec, format] =
        typeof site.openapi === 'string' ? [site.openapi, 'text'] : [JSON.stringify(site.openapi), 'object'];
      await client.query(
        'INSERT INTO openapi_specs (site, spec, format, updated_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING',
        [site.id, spec, format, now],
      );
    }
    if (site.adaptive !== undefined)
      await client.query(
        'INSERT INTO adaptive_claims (site, claims, updated_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING',
        [site.id, JSON.stringify(site.adaptive), now],
      );
  }
}

async function insertGitRequest(db: Db, record: GitRequestRecord): Promise<void> {
  await db.query(
    'INSERT INTO git_syncs (id, space, installation_id, status, ' +
      'created_at, kind, request) VALUES ($1, $2, $3, $4, $5, $6, $7)',
    [
      record.id,
      record.spaceId,
      record.installationId,
      record.status,
      record.createdAt,
      record.kind,
      record.request === null ? null : JSON.stringify(record.request),
    ],
  );
  // Bounded like SQLite's: the newest records of the space stay, the oldest go.
  await db.query(
    'DELETE FROM git_syncs WHERE space = $1 AND seq <= (SELECT seq FROM ' +
      'git_syncs WHERE space = $1 ORDER BY seq DESC LIMIT 1 OFFSET $2)',
    [record.spaceId, MAX_GIT_SYNCS_PER_SPACE],
  );
}

export function createPostgresPlatformStore(db: Db): PlatformStore {
  return {
    seed: (data) =>
      db.transaction(async (client) => {
        await client.query('SELECT pg_advisory_xact_lock($1, $2)', [LOCK_NAMESPACE, LOCK_SEED]);
        await seed(client, data);
        // Spaces seeded just now (or before revisions were recorded) get their first revision.
        await reconcileRevisions(client, new Date().toISOString());
      }),
    ...createPostgresRevisionRecords(db),
    async loadDirectory() {
      const spaces = (await db.query<{ id: string; organization: string }>('SELECT id, organization FROM spaces')).rows;
      const sites = (await db.query<{ id: string; organization: string }>('SELECT id, organization FROM sites')).rows;
      const siteSpaces = (
        await db.query<{ site: string; space: string }>(
          'SELECT site, space FROM site_spaces ORDER BY site, position, space',
        )
      ).rows;
      const siteMap = new Map(sites.map((row) => [row.id, { organization: row.organization, spaces: [] as string[] }]));
      for (const row of siteSpaces) siteMap.get(row.site)?.spaces.push(row.space);
      return createResourceDirectory(new Map(spaces.map((row) => [row.id, row.organization])), siteMap);
    },
    async getSpace(id) {
      const row = (await db.query<SpaceRow>('SELECT * FROM spaces WHERE id = $1', [id])).rows[0];
      return row ? toSpace(row) : undefined;
    },
    async updateSpace(id, patch) {
      const row = (
        await db.query<SpaceRow>(
          'UPDATE spaces SET title = COALESCE($2, title), description = COALESCE($3, ' +
            'description), visibility = COALESCE($4, visibility) WHERE id = $1 RETURNING *',
          [id, patch.title ?? null, patch.description ?? null, patch.visibility ?? null],
        )
      ).rows[0];
      return row ? toSpace(row) : undefined;
    },
    async listPages(spaceId) {
      const { rows } = await db.query<Omit<PageRow, 'space' | 'markdown'>>(
        'SELECT id, title, revision, updated_at FROM pages WHERE space = $1 ORDER BY seq',
        [spaceId],
      );
      return rows.map((row) => ({ id: row.id, title: row.title, revision: row.revision, updatedAt: row.updated_at }));
    },
    async getPage(spaceId, pageId) {
      const row = (await db.query<PageRow>('SELECT * FROM pages WHERE space = $1 AND id = $2', [spaceId, pageId]))
        .rows[0];
      return row ? toPage(row) : undefined;
    },
    async putPage(spaceId, pageId, input) {
      const now = new Date().toISOString();
      // The page and the space revision it makes are written together, or neither is; the space's
      // row lock makes writers of one space (on any host) take turns.
      const row = await db.transaction(async (client) => {
        await lockSpace(client, spaceId);
        await keepPageVersion(client, spaceId, pageId);
        const written = (
          await client.query<PageRow>(
            `INSERT INTO pages (space, id, title, markdown, revision, updated_at) VALUES ($1, $2, COALESCE($3, $2), $4,
              1, $5)
             ON CONFLICT (space, id) DO UPDATE SET title = COALESCE($3, pages.title), markdown = excluded.markdown,
               revision = pages.revision + 1, updated_at = excluded.updated_at
             RETURNING *`,
            [spaceId, pageId, input.title ?? null, input.markdown, now],
          )
        ).rows[0];
        await recordRevision(client, spaceId, now);
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
      await insertGitRequest(db, { ...record, kind: 'sync', request: null });
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
      await insertGitRequest(db, record);
      return record;
    },
    async listGitRequests(spaceId) {
      return (
        await db.query<GitRequestRow>('SELECT * FROM git_syncs WHERE space = $1 ORDER BY seq DESC', [spaceId])
      ).rows.map(toGitRequest);
    },
    async spaceContentUsage(spaceId) {
      const row = (
        await db.query<{ pages: number; chars: number }>(
          'SELECT COUNT(*)::int AS pages, ' +
            'COALESCE(SUM(LENGTH(markdown)), 0)::bigint AS chars FROM ' +
            'pages WHERE space = $1',
          [spaceId],
        )
      ).rows[0];
      return { pages: Number(row.pages), markdownChars: Number(row.chars) };
    },
    async conversationUsage(installationId) {
      const row = (
        await db.query<{ count: number; chars: number }>(
          'SELECT COUNT(*)::int AS count, COALESCE(SUM(LENGTH(messages)), ' +
            '0)::bigint AS chars FROM conversations WHERE installation_id = $1',
          [installationId],
        )
      ).rows[0];
      return { conversations: Number(row.count), chars: Number(row.chars) };
    },
    async getSite(id) {
      const row = (
        await db.query<{ id: string; organization: string; title: string }>(
          'SELECT id, organization, title FROM sites WHERE id = $1',
          [id],
        )
      ).rows[0];
      if (row === undefined) return undefined;
      const spaces = (
        await db.query<{ space: string }>('SELECT space FROM site_spaces WHERE site = $1 ORDER BY position, space', [
          id,
        ])
      ).rows.map((entry) => entry.space);
      return { id: row.id, organization: row.organization, title: row.title, spaces };
    },
    async listSiteViews(siteId, { limit, cursor }) {
      const before = cursor === undefined ? Number.MAX_SAFE_INTEGER : Number(cursor);
      const { rows } = await db.query<{
        seq: number;
        id: string;
        site: string;
        space: string | null;
        page: string | null;
        url: string;
        visitor_id: string;
        viewed_at: string;
      }>('SELECT * FROM site_views WHERE site = $1 AND seq < $2 ORDER BY seq DESC LIMIT $3', [
        siteId,
        before,
        limit + 1,
      ]);
      const page = rows.slice(0, limit);
      return {
        items: page.map((row) => ({
          id: row.id,
          siteId: row.site,
          spaceId: row.space,
          pageId: row.page,
          url: row.url,
          visitorId: row.visitor_id,
          viewedAt: row.viewed_at,
        })),
        next: rows.length > limit ? String(page[page.length - 1].seq) : null,
      };
    },
    async listPageFeedback(siteId) {
      const { rows } = await db.query<{
        id: string;
        site: string;
        space: string;
        page: string;
        rating: string;
        comment: string;
        created_at: string;
      }>('SELECT * FROM page_feedback WHERE site = $1 ORDER BY created_at DESC, id', [siteId]);
      return rows.map((row) => ({
        id: row.id,
        siteId: row.site,
        spaceId: row.space,
        pageId: row.page,
        rating: row.rating,
        comment: row.comment,
        createdAt: row.created_at,
      }));
    },
    async getOpenApi(siteId) {
      const row = (
        await db.query<{ spec: string; format: string; updated_at: string }>(
          'SELECT spec, format, updated_at FROM openapi_specs WHERE site = $1',
          [siteId],
        )
      ).rows[0];
      if (row === undefined) return { siteId, spec: null, updatedAt: null };
      return {
        siteId,
        spec: row.format === 'text' ? row.spec : (JSON.parse(row.spec) as Record<string, unknown>),
        updatedAt: row.updated_at,
      };
    },
    async putOpenApi(siteId, spec) {
      const updatedAt = new Date().toISOString();
      const [stored, format] = typeof spec === 'string' ? [spec, 'text'] : [JSON.stringify(spec), 'object'];
      await db.query(
        'INSERT INTO openapi_specs (site, spec, format, updated_at) VALUES ($1, $2, $3, $4) ON CONFLICT ' +
          '(site) DO UPDATE SET spec = excluded.spec, format = excluded.format, updated_at = ' +
          'excluded.updated_at',
        [siteId, stored, format, updatedAt],
      );
      return { siteId, spec, updatedAt };
    },
    async getAdaptive(siteId) {
      const row = (
        await db.query<{ claims: string; updated_at: string }>(
          'SELECT claims, updated_at FROM adaptive_claims WHERE site = $1',
          [siteId],
        )
      ).rows[0];
      return row === undefined
        ? { siteId, claims: {}, updatedAt: null }
        : { siteId, claims: JSON.parse(row.claims) as Record<string, unknown>, updatedAt: row.updated_at };
    },
    async putAdaptive(siteId, claims) {
      const updatedAt = new Date().toISOString();
      await db.query(
        'INSERT INTO adaptive_claims (site, claims, updated_at) VALUES ($1, $2, $3) ON CONFLICT ' +
          '(site) DO UPDATE SET claims = excluded.claims, updated_at = excluded.updated_at',
        [siteId, JSON.stringify(claims), updatedAt],
      );
      return { siteId, claims, updatedAt };
    },
    async getAdaptiveSchema(siteId) {
      const row = (
        await db.query<{ json_schema: string; updated_at: string }>(
          'SELECT json_schema, updated_at FROM adaptive_schemas WHERE site = $1',
          [siteId],
        )
      ).rows[0];
      return row === undefined
        ? undefined
        : { siteId, jsonSchema: JSON.parse(row.json_schema) as Record<string, unknown>, updatedAt: row.updated_at };
    },
    async putAdaptiveSchema(siteId, jsonSchema) {
      const updatedAt = new Date().toISOString();
      await db.query(
        'INSERT INTO adaptive_schemas (site, json_schema, updated_at) VALUES ($1, $2, $3) ON CONFLICT ' +
          '(site) DO UPDATE SET json_schema = excluded.json_schema, updated_at = excluded.updated_at',
        [siteId, JSON.stringify(jsonSchema), updatedAt],
      );
      return { siteId, jsonSchema, updatedAt };
    },
    async recordConversation(input) {
      const record: ConversationRecord = {
        ...input,
        id: `conv_${randomUUID().replaceAll('-', '')}`,
        createdAt: new Date().toISOString(),
      };
      await db.query(
        'INSERT INTO conversations (id, organization, installation_id, space, ' +
          'site, messages, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
        [
          record.id,
          record.organization,
          record.installationId,
          record.spaceId,
          record.siteId,
          JSON.stringify(record.messages),
          record.createdAt,
        ],
      );
      return record;
    },
  };
}

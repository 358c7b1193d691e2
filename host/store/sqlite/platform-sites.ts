// node:sqlite records of sites: site metadata with its spaces, views (keyset-paginated, newest
// first), page feedback, the OpenAPI spec and adaptive claims. Plain reads and writes; never
// checks who is asking nor validates a spec (the routes do).

import type { DatabaseSync } from 'node:sqlite';
import type {
  AdaptiveClaims,
  AdaptiveSchema,
  OpenApiSpec,
  PageFeedback,
  PlatformStore,
  SiteView,
} from '../../platform-data/records.ts';

interface ViewRow {
  seq: number;
  id: string;
  site: string;
  space: string | null;
  page: string | null;
  url: string;
  visitor_id: string;
  viewed_at: string;
}

interface FeedbackRow {
  id: string;
  site: string;
  space: string;
  page: string;
  rating: string;
  comment: string;
  created_at: string;
}

function toView(row: ViewRow): SiteView {
  return {
    id: row.id,
    siteId: row.site,
    spaceId: row.space,
    pageId: row.page,
    url: row.url,
    visitorId: row.visitor_id,
    viewedAt: row.viewed_at,
  };
}

function toFeedback(row: FeedbackRow): PageFeedback {
  return {
    id: row.id,
    siteId: row.site,
    spaceId: row.space,
    pageId: row.page,
    rating: row.rating,
    comment: row.comment,
    createdAt: row.created_at,
  };
}

type SiteRecords = Pick<
  PlatformStore,
  | 'getSite'
  | 'listSiteViews'
  | 'listPageFeedback'
  | 'getOpenApi'
  | 'putOpenApi'
  | 'getAdaptive'
  | 'putAdaptive'
  | 'getAdaptiveSchema'
  | 'putAdaptiveSchema'
>;

export function createSiteRecords(db: DatabaseSync): SiteRecords {
  const statements = {
    getSite: db.prepare('SELECT id, organization, title FROM sites WHERE id = ?'),
    siteSpaces: db.prepare('SELECT space FROM site_spaces WHERE site = ? ORDER BY position, space'),
    // The cursor is the last seq handed out: stable while new views arrive on top.
    views: db.prepare('SELECT * FROM site_views WHERE site = ? AND seq < ? ORDER BY seq DESC LIMIT ?'),
    feedback: db.prepare('SELECT * FROM page_feedback WHERE site = ? ORDER BY created_at DESC, id'),
    getOpenApi: db.prepare('SELECT spec, format, updated_at FROM openapi_specs WHERE site = ?'),
    putOpenApi: db.prepare(
      'INSERT INTO openapi_specs (site, spec, format, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT (site) DO ' +
        'UPDATE SET spec = excluded.spec, format = excluded.format, updated_at = excluded.updated_at',
    ),
    getAdaptive: db.prepare('SELECT claims, updated_at FROM adaptive_claims WHERE site = ?'),
    putAdaptive: db.prepare(
      'INSERT INTO adaptive_claims (site, claims, updated_at) VALUES (?, ?, ?) ON CONFLICT ' +
        '(site) DO UPDATE SET claims = excluded.claims, updated_at = excluded.updated_at',
    ),
    getAdaptiveSchema: db.prepare('SELECT json_schema, updated_at FROM adaptive_schemas WHERE site = ?'),
    putAdaptiveSchema: db.prepare(
      'INSERT INTO adaptive_schemas (site, json_schema, updated_at) VALUES (?, ?, ?) ON CONFLICT ' +
        '(site) DO UPDATE SET json_schema = excluded.json_schema, updated_at = excluded.updated_at',
    ),
  };
  return {
    async getSite(id) {
      const row = statements.getSite.get(id) as { id: string; organization: string; title: string } | undefined;
      if (row === undefined) return undefined;
      const spaces = (statements.siteSpaces.all(id) as unknown as { space: string }[]).map((entry) => entry.space);
      return { id: row.id, organization: row.organization, title: row.title, spaces };
    },
    async listSiteViews(siteId, { limit, cursor }) {
      const before = cursor === undefined ? Number.MAX_SAFE_INTEGER : Number(cursor);
      // One extra row tells whether another page exists without a COUNT.
      const rows = statements.views.all(siteId, before, limit + 1) as unknown as ViewRow[];
      const page = rows.slice(0, limit);
      return { items: page.map(toView), next: rows.length > limit ? String(page[page.length - 1].seq) : null };
    },
    listPageFeedback: async (siteId) => (statements.feedback.all(siteId) as unknown as FeedbackRow[]).map(toFeedback),
    async getOpenApi(siteId): Promise<OpenApiSpec> {
      const row = statements.getOpenApi.get(siteId) as { spec: string; format: string; updated_at: string } | undefined;
      if (row === undefined) return { siteId, spec: null, updatedAt: null };
      const spec = row.format === 'text' ? row.spec : (JSON.parse(row.spec) as Record<string, unknown>);
      return { siteId, spec, updatedAt: row.updated_at };
    },
    async putOpenApi(siteId, spec) {
      const updatedAt = new Date().toISOString();
      const [stored, format] = typeof spec === 'string' ? [spec, 'text'] : [JSON.stringify(spec), 'object'];
      statements.putOpenApi.run(siteId, stored, format, updatedAt);
      return { siteId, spec, updatedAt };
    },
    async getAdaptive(siteId): Promise<AdaptiveClaims> {
      const row = statements.getAdaptive.get(siteId) as { claims: string; updated_at: string } | undefined;
      return row === undefined
        ? { siteId, claims: {}, updatedAt: null }
        : { siteId, claims: JSON.parse(row.claims) as Record<string, unknown>, updatedAt: row.updated_at };
    },
    async putAdaptive(siteId, claims) {
      const updatedAt = new Date().toISOString();
      statements.putAdaptive.run(siteId, JSON.stringify(claims), updatedAt);
      return { siteId, claims, updatedAt };
    },
    async getAdaptiveSchema(siteId): Promise<AdaptiveSchema | undefined> {
      const row = statements.getAdaptiveSchema.get(siteId) as { json_schema: string; updated_at: string } | undefined;
      return row === undefined
        ? undefined
        : { siteId, jsonSchema: JSON.parse(row.json_schema) as Record<string, unknown>, updatedAt: row.updated_at };
    },
    async putAdaptiveSchema(siteId, jsonSchema) {
      const updatedAt = new Date().toISOString();
      statements.putAdaptiveSchema.run(siteId, JSON.stringify(jsonSchema), updatedAt);
      return { siteId, jsonSchema, updatedAt };
    },
  };
}

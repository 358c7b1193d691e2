// Seeds the platform tables from the --platform data at startup. Inserts only rows that do not
// exist yet (INSERT OR IGNORE by primary key): it must never overwrite what integrations wrote
// through the API, so a page edited before a restart keeps its edit and its revision.

import type { DatabaseSync } from 'node:sqlite';
import type { PlatformData } from '../../platform-data/data.ts';

function seedSite(db: DatabaseSync, site: PlatformData['sites'][number], now: string): void {
  db.prepare('INSERT OR IGNORE INTO sites (id, organization, title) VALUES (?, ?, ?)').run(
    site.id,
    site.organization,
    site.title,
  );
  const siteSpace = db.prepare('INSERT OR IGNORE INTO site_spaces (site, space, position) VALUES (?, ?, ?)');
  site.spaces.forEach((space, position) => siteSpace.run(site.id, space, position));
  const view = db.prepare(
    'INSERT OR IGNORE INTO site_views (id, site, space, page, url, visitor_id, viewed_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  for (const v of site.views)
    view.run(v.id, site.id, v.spaceId ?? null, v.pageId ?? null, v.url, v.visitorId, v.viewedAt);
  const feedback = db.prepare(
    'INSERT OR IGNORE INTO page_feedback (id, site, space, page, ' +
      'rating, comment, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  for (const f of site.feedback) feedback.run(f.id, site.id, f.spaceId, f.pageId, f.rating, f.comment, f.createdAt);
  if (site.openapi !== undefined) {
    const [spec, format] =
      typeof site.openapi === 'string' ? [site.openapi, 'text'] : [JSON.stringify(site.openapi), 'object'];
    db.prepare('INSERT OR IGNORE INTO openapi_specs (site, spec, format, updated_at) VALUES (?, ?, ?, ?)').run(
      site.id,
      spec,
      format,
      now,
    );
  }
  if (site.adaptive !== undefined) {
    db.prepare('INSERT OR IGNORE INTO adaptive_claims (site, claims, updated_at) VALUES (?, ?, ?)').run(
      site.id,
      JSON.stringify(site.adaptive),
      now,
    );
  }
}

export function seedPlatformTables(db: DatabaseSync, data: PlatformData): void {
  const now = new Date().toISOString();
  db.exec('BEGIN');
  try {
    const organization = db.prepare('INSERT OR IGNORE INTO organizations (id, subdomain, title) VALUES (?, ?, ?)');
    const member = db.prepare('INSERT OR IGNORE INTO members (organization, id, email, role) VALUES (?, ?, ?, ?)');
    for (const org of data.organizations) {
      organization.run(org.id, org.subdomain, org.title);
      for (const m of org.members) member.run(org.id, m.id, m.email, m.role);
    }
    const space = db.prepare(
      'INSERT OR IGNORE INTO spaces (id, organization, title, ' +
        'visibility, description, metadata) VALUES (?, ?, ?, ?, ?, ?)',
    );
    const page = db.prepare(
      'INSERT OR IGNORE INTO pages (space, id, title, markdown, revision, updated_at) VALUES (?, ?, ?, ?, 1, ?)',
    );
    for (const s of data.spaces) {
      space.run(s.id, s.organization, s.title, s.visibility, s.description, JSON.stringify(s.metadata));
      for (const p of s.pages) page.run(s.id, p.id, p.title, p.markdown, now);
    }
    for (const site of data.sites) seedSite(db, site, now);
    db.exec('COMMIT');
  } catch (error) {
    db.exec('ROLLBACK');
    throw error;
  }
}

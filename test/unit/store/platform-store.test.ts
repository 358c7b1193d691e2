import { describe, it, expect, beforeEach } from 'vitest';
import type { DatabaseSync } from 'node:sqlite';
import { openDatabase } from '../../../host/store/sqlite/database.ts';
import { createSqlitePlatformStore } from '../../../host/store/sqlite/platform.ts';
import type { PlatformStore } from '../../../host/platform/records.ts';
import { loadPlatformData } from '../../../host/platform/data.ts';

const data = loadPlatformData('fixtures/platform.yaml');
let db: DatabaseSync;
let store: PlatformStore;

beforeEach(() => {
  db = openDatabase(':memory:');
  store = createSqlitePlatformStore(db);
  store.seed(data);
});

describe('platform store', () => {
  it('answers the resource directory from its tables', () => {
    expect(store.spaceOrganization('space_globex_docs')).toBe('globex');
    expect(store.spaceOrganization('nope')).toBeUndefined();
    expect(store.siteInfo('site_acme')).toEqual({ organization: 'acme', spaces: ['space_acme_docs'] });
    expect(store.siteInfo('nope')).toBeUndefined();
  });

  it('seeding again changes nothing that was written since', () => {
    store.putPage('space_acme_docs', 'page_intro', { markdown: 'mine' });
    store.updateSpace('space_acme_docs', { title: 'Mine' });
    store.putOpenApi('site_acme', 'openapi: 3.0.0');
    store.seed(data);
    expect(store.getPage('space_acme_docs', 'page_intro')).toMatchObject({ markdown: 'mine', revision: 2 });
    expect(store.getSpace('space_acme_docs')?.title).toBe('Mine');
    expect(store.getOpenApi('site_acme').spec).toBe('openapi: 3.0.0');
    expect(store.listPages('space_acme_docs')).toHaveLength(2);
  });

  it('keeps the page order of the seed and appends new pages', () => {
    store.putPage('space_acme_docs', 'page_z', { markdown: '' });
    expect(store.listPages('space_acme_docs').map((page) => page.id)).toEqual(['page_intro', 'page_api', 'page_z']);
  });

  it('only updates the fields a space patch names', () => {
    expect(store.updateSpace('space_acme_docs', { visibility: 'private' })).toMatchObject({ title: 'Acme Developer Docs', visibility: 'private', description: 'Public documentation of the Acme APIs.' });
    expect(store.updateSpace('nope', { title: 'x' })).toBeUndefined();
  });

  it('pages through views newest first without skipping or repeating one', () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = store.listSiteViews('site_acme', { limit: 1, ...(cursor ? { cursor } : {}) });
      seen.push(...page.items.map((view) => view.id));
      cursor = page.next ?? undefined;
    } while (cursor !== undefined);
    expect(seen).toEqual(['view_acme_3', 'view_acme_2', 'view_acme_1']);
  });

  it('holds the seeded feedback, OpenAPI text and adaptive claims per site', () => {
    expect(store.listPageFeedback('site_globex')).toEqual([expect.objectContaining({ id: 'fb_globex_1', rating: 'bad' })]);
    expect(store.getOpenApi('site_globex').spec).toMatch(/^swagger: "2\.0"/);
    expect(store.getAdaptive('site_acme').claims).toEqual({ plan: 'enterprise', region: 'eu' });
  });

  it('answers an empty spec and no claims for a site that has none', () => {
    db.exec("DELETE FROM openapi_specs; DELETE FROM adaptive_claims;");
    expect(store.getOpenApi('site_acme')).toEqual({ siteId: 'site_acme', spec: null, updatedAt: null });
    expect(store.getAdaptive('site_acme')).toEqual({ siteId: 'site_acme', claims: {}, updatedAt: null });
  });
});

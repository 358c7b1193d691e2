// The platform store contract, on SQLite and PostgreSQL alike: seeding adds only what is missing,
// the resource directory, page revisions, keyset pagination of views, per-site records.
import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import type { PlatformStore } from '../../../host/platform-data/records.ts';
import { loadPlatformData } from '../../../host/platform-data/data.ts';
import { useBackends, type Database } from './backends.ts';

const data = loadPlatformData('fixtures/platform.yaml');
let database: Database;
let store: PlatformStore;

describe.each(useBackends())('platform store on $name', (backend) => {
  beforeEach(async (context) => {
    if (backend.skip !== undefined) return context.skip(backend.skip);
    database = await backend.fresh();
    store = (await database.open()).platform;
    await store.seed(data);
  });
  afterEach(async () => {
    await database?.close();
  });

  it('answers the resource directory from its tables', async () => {
    const directory = await store.loadDirectory();
    expect(directory.spaceOrganization('space_globex_docs')).toBe('globex');
    expect(directory.spaceOrganization('nope')).toBeUndefined();
    expect(directory.siteInfo('site_acme')).toEqual({ organization: 'acme', spaces: ['space_acme_docs'] });
    expect(directory.siteInfo('nope')).toBeUndefined();
  });

  it('seeds once when two hosts seed at the same time', async () => {
    const other = (await database.open()).platform;
    await Promise.all([store.seed(data), other.seed(data), store.seed(data)]);
    expect(await store.listPages('space_acme_docs')).toHaveLength(2);
    expect((await other.listSiteViews('site_acme', { limit: 10 })).items).toHaveLength(3);
  });

  it('seeding again changes nothing that was written since', async () => {
    await store.putPage('space_acme_docs', 'page_intro', { markdown: 'mine' });
    await store.updateSpace('space_acme_docs', { title: 'Mine' });
    await store.putOpenApi('site_acme', 'openapi: 3.0.0');
    await store.seed(data);
    expect(await store.getPage('space_acme_docs', 'page_intro')).toMatchObject({ markdown: 'mine', revision: 2 });
    expect((await store.getSpace('space_acme_docs'))?.title).toBe('Mine');
    expect((await store.getOpenApi('site_acme')).spec).toBe('openapi: 3.0.0');
    expect(await store.listPages('space_acme_docs')).toHaveLength(2);
  });

  it('keeps the page order of the seed and appends new pages', async () => {
    await store.putPage('space_acme_docs', 'page_z', { markdown: '' });
    expect((await store.listPages('space_acme_docs')).map((page) => page.id)).toEqual([
      'page_intro',
      'page_api',
      'page_z',
    ]);
  });

  it('only updates the fields a space patch names', async () => {
    expect(await store.updateSpace('space_acme_docs', { visibility: 'private' })).toMatchObject({
      title: 'Acme Developer Docs',
      visibility: 'private',
      description: 'Public documentation of the Acme APIs.',
    });
    expect(await store.updateSpace('nope', { title: 'x' })).toBeUndefined();
  });

  it('pages through views newest first without skipping or repeating one', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await store.listSiteViews('site_acme', { limit: 1, ...(cursor ? { cursor } : {}) });
      seen.push(...page.items.map((view) => view.id));
      cursor = page.next ?? undefined;
    } while (cursor !== undefined);
    expect(seen).toEqual(['view_acme_3', 'view_acme_2', 'view_acme_1']);
  });

  it('holds the seeded feedback, OpenAPI text and adaptive claims per site', async () => {
    expect(await store.listPageFeedback('site_globex')).toEqual([
      expect.objectContaining({ id: 'fb_globex_1', rating: 'bad' }),
    ]);
    expect((await store.getOpenApi('site_globex')).spec).toMatch(/^swagger: "2\.0"/);
    expect((await store.getAdaptive('site_acme')).claims).toEqual({ plan: 'enterprise', region: 'eu' });
  });

  it('answers an empty spec and no claims for a site that has none', async () => {
    const bare = await backend.fresh();
    try {
      const empty = (await bare.open()).platform;
      await empty.seed({
        ...data,
        sites: data.sites.map(({ openapi: _openapi, adaptive: _adaptive, ...site }) => site),
      });
      expect(await empty.getOpenApi('site_acme')).toEqual({ siteId: 'site_acme', spec: null, updatedAt: null });
      expect(await empty.getAdaptive('site_acme')).toEqual({ siteId: 'site_acme', claims: {}, updatedAt: null });
    } finally {
      await bare.close();
    }
  });

  it('keeps only the newest 1,000 git sync records of a space', async () => {
    const first = await store.recordGitSync('space_acme_docs', 'inst_1');
    for (let i = 0; i < 1_050; i++) await store.recordGitSync('space_acme_docs', 'inst_1');
    const [{ n }] = await database.rows("SELECT COUNT(*) AS n FROM git_syncs WHERE space = 'space_acme_docs'");
    expect(Number(n)).toBe(1_000);
    expect(await database.rows(`SELECT id FROM git_syncs WHERE id = '${first.id}'`)).toEqual([]);
  });

  it('reports what a space and an installation store, for the quotas', async () => {
    const before = await store.spaceContentUsage('space_acme_docs');
    await store.putPage('space_acme_docs', 'quota_page', { markdown: 'x'.repeat(1_000) });
    expect(await store.spaceContentUsage('space_acme_docs')).toEqual({
      pages: before.pages + 1,
      markdownChars: before.markdownChars + 1_000,
    });
    expect(await store.conversationUsage('inst_1')).toEqual({ conversations: 0, chars: 0 });
    await store.recordConversation({
      organization: 'acme',
      installationId: 'inst_1',
      spaceId: null,
      siteId: null,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(await store.conversationUsage('inst_1')).toEqual({
      conversations: 1,
      chars: JSON.stringify([{ role: 'user', content: 'hi' }]).length,
    });
  });
});

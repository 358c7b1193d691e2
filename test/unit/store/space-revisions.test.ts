// Space revisions and Git requests in the platform store, on SQLite and PostgreSQL alike: the first
// revision recorded at seeding, one per page write with its parent, the page versions each holds
// (superseded Markdown kept), pruning to the newest revisions with the versions only they held,
// concurrent writers from two hosts, and Git imports/exports recorded beside the syncs.
import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import type { PlatformStore } from '../../../host/platform-data/records.ts';
import { loadPlatformData } from '../../../host/platform-data/data.ts';
import { MAX_REVISIONS_PER_SPACE, revisionIdOf } from '../../../host/platform-data/revisions.ts';
import { useBackends, type Database } from './backends.ts';

const data = loadPlatformData('fixtures/platform.yaml');
const SPACE = 'space_acme_docs';
let database: Database;
let store: PlatformStore;

describe.each(useBackends())('space revisions on $name', (backend) => {
  beforeEach(async (context) => {
    if (backend.skip !== undefined) return context.skip(backend.skip);
    database = await backend.fresh();
    store = (await database.open()).platform;
    await store.seed(data);
  });
  afterEach(async () => {
    await database?.close();
  });

  it("records each space's first revision when seeding, once however often it seeds", async () => {
    const first = await store.getCurrentRevision(SPACE);
    expect(first).toMatchObject({
      spaceId: SPACE,
      parent: null,
      pages: [
        { id: 'page_intro', revision: 1 },
        { id: 'page_api', revision: 1 },
      ],
    });
    expect(first?.id).toBe(revisionIdOf(first!.pages));
    await store.seed(data);
    await (await database.open()).platform.seed(data);
    expect(await store.getCurrentRevision(SPACE)).toEqual(first);
    expect(await database.rows(`SELECT id FROM space_revisions WHERE space = '${SPACE}'`)).toHaveLength(1);
  });

  it('records a revision per page write, child of the one before, and keeps the superseded version', async () => {
    const first = (await store.getCurrentRevision(SPACE))!;
    await store.putPage(SPACE, 'page_intro', { title: 'Intro', markdown: '# Hello again' });
    const second = (await store.getCurrentRevision(SPACE))!;
    expect(second).toMatchObject({
      parent: first.id,
      pages: [
        { id: 'page_intro', revision: 2 },
        { id: 'page_api', revision: 1 },
      ],
    });
    await store.putPage(SPACE, 'page_new', { markdown: 'new' });
    const third = (await store.getCurrentRevision(SPACE))!;
    expect(third.parent).toBe(second.id);
    expect(third.pages.map((page) => page.id)).toEqual(['page_intro', 'page_api', 'page_new']);
    // Each revision still answers with its own page versions.
    expect(await store.getRevision(SPACE, first.id)).toEqual(first);
    const before = await store.getPageVersions(SPACE, first.pages);
    expect(before.map((page) => [page.id, page.revision, page.title, page.markdown])).toEqual([
      ['page_intro', 1, 'Introduction', '# Welcome to Acme'],
      ['page_api', 1, 'API reference', '## Endpoints'],
    ]);
    const after = await store.getPageVersions(SPACE, third.pages);
    expect(after.map((page) => [page.id, page.revision, page.markdown])).toEqual([
      ['page_intro', 2, '# Hello again'],
      ['page_api', 1, '## Endpoints'],
      ['page_new', 1, 'new'],
    ]);
    expect(await store.getRevision(SPACE, 'rev_unknown')).toBeUndefined();
    expect(await store.getRevision('space_globex_docs', first.id)).toBeUndefined();
  });

  it(
    `keeps the newest ${MAX_REVISIONS_PER_SPACE} revisions ` + `and drops the page versions only older ones held`,
    async () => {
      const first = (await store.getCurrentRevision(SPACE))!;
      for (let i = 0; i < MAX_REVISIONS_PER_SPACE + 5; i++)
        await store.putPage(SPACE, 'page_intro', { markdown: `edit ${i}` });
      expect(await database.rows(`SELECT id FROM space_revisions WHERE space = '${SPACE}'`)).toHaveLength(
        MAX_REVISIONS_PER_SPACE,
      );
      expect(await store.getRevision(SPACE, first.id)).toBeUndefined();
      const oldest = (
        await database.rows(`SELECT id FROM space_revisions WHERE space = '${SPACE}' ORDER BY seq LIMIT 1`)
      )[0].id as string;
      const kept = (await store.getRevision(SPACE, oldest))!;
      // The oldest kept revision still has every page version it names; nothing older is stored.
      expect((await store.getPageVersions(SPACE, kept.pages)).map((page) => page.revision)).toEqual(
        kept.pages.map((page) => page.revision),
      );
      const stored = await database.rows(
        `SELECT revision FROM page_versions WHERE space = '${SPACE}' AND page = 'page_intro' ORDER BY revision`,
      );
      expect(stored.map((row) => Number(row.revision))).toEqual(
        Array.from({ length: MAX_REVISIONS_PER_SPACE - 1 }, (_, i) => kept.pages[0].revision + i),
      );
      expect(
        await database.rows(`SELECT page FROM page_versions WHERE space = '${SPACE}' AND page = 'page_api'`),
      ).toEqual([]);
    },
  );

  it('orders concurrent writers of one space, from two hosts, into one chain of revisions', async () => {
    const other = (await database.open()).platform;
    await Promise.all([
      ...Array.from({ length: 6 }, (_, i) => store.putPage(SPACE, 'page_intro', { markdown: `a${i}` })),
      ...Array.from({ length: 6 }, (_, i) => other.putPage(SPACE, 'page_api', { markdown: `b${i}` })),
    ]);
    const current = (await store.getCurrentRevision(SPACE))!;
    expect(current.pages).toEqual([
      { id: 'page_intro', revision: 7 },
      { id: 'page_api', revision: 7 },
    ]);
    // Walk the chain back to the first revision: every link is recorded, 12 writes after it.
    let steps = 0;
    for (let revision = current; revision.parent !== null; steps++)
      revision = (await store.getRevision(SPACE, revision.parent))!;
    expect(steps).toBe(12);
  });

  it('records Git imports and exports beside the syncs, newest first', async () => {
    const sync = await store.recordGitSync(SPACE, 'inst_1');
    const request = {
      url: 'https://git.example.test/acme/docs.git',
      credentials: true,
      ref: 'refs/heads/main',
      commitMessage: 'GitBook: update',
      revision: 'rev_1',
    };
    const exported = await store.recordGitRequest(SPACE, 'inst_1', 'export', request);
    expect(exported).toMatchObject({
      id: expect.stringMatching(/^export_[0-9a-f]{32}$/),
      kind: 'export',
      status: 'queued',
      request,
    });
    const listed = await store.listGitRequests(SPACE);
    expect(listed.map((record) => [record.id, record.kind])).toEqual([
      [exported.id, 'export'],
      [sync.id, 'sync'],
    ]);
    expect(listed[0]).toEqual(exported);
    expect(listed[1].request).toBeNull();
    expect(await store.listGitRequests('space_globex_docs')).toEqual([]);
  });
});

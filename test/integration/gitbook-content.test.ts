// GitBook's space content and Git methods through the real host, called by @gitbook/api's client
// inside test/fixtures/gitbook-content/content-probe: a content update handled as GitBook's Git
// Sync integrations handle it (revision, changes, current revision, export), and each method relayed
// from the probe's endpoint, every answer validated with the test's own ajv against GitBook's spec.
// Scope and resource refusals of these routes are in test/security/scope-matrix.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newestEvent, startTestHost, type TestHost } from '../helpers/host.ts';
import { install } from '../helpers/platform-api.ts';
import { expectValidAgainstSpec, expectValidAnswerOf } from '../helpers/gitbook-spec.ts';

const SPACE = 'space_acme_docs';
const SECRET = 'ghs_probe-token-7f3a';
let host: TestHost;
let probe: { id: string; endpoint: string };
/** The space's revision before the tests write anything: the one seeding recorded. */
let first: string;
let globexFirst: string;

beforeAll(async () => {
  host = await startTestHost({ dirs: ['test/fixtures/gitbook-content'] });
  const installed = await install(host, 'content-probe', { organization: 'acme', target: 'space', space: SPACE });
  probe = { id: installed.id, endpoint: installed.urls.publicEndpoint };
  first = (await host.stores.platform.getCurrentRevision(SPACE))!.id;
  globexFirst = (await host.stores.platform.getCurrentRevision('space_globex_docs'))!.id;
});
afterAll(() => host?.close());

/**
 * One @gitbook/api client method (`api.spaces.<method>(...args)`) called inside the probe: `{ status, data }` or `{
 * status, message }`.
 */
async function call(method: string, ...args: unknown[]): Promise<{ status: number; data?: any; message?: string }> {
  const response = await fetch(probe.endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ method, args }),
  });
  expect(response.status, await response.clone().text()).toBe(200);
  return response.json();
}

/** The JSON the probe logged after `prefix ` in its newest events, newest first. */
async function logged(prefix: string): Promise<any[]> {
  const response = await host.admin('/v1/integrations/content-probe/events?limit=50');
  const entries: { logs: { text: string }[] }[] = (await response.json()).items;
  const marker = `[content-probe] ${prefix} `;
  return entries
    .flatMap((entry) => entry.logs)
    .flatMap((line) => (line.text.startsWith(marker) ? [JSON.parse(line.text.slice(marker.length))] : []));
}

describe("a content update handled as GitBook's Git Sync integrations do", () => {
  it(
    "reads the event's revision and its changes, then exports the current revision: recorded, without the URL's " +
      'credentials',
    async () => {
      const configured = await host.admin(`/v1/installations/${probe.id}/configuration`, {
        method: 'PATCH',
        body: JSON.stringify({ repository: `https://x-access-token:${SECRET}@git.example.test/acme/docs.git` }),
      });
      expect(configured.status).toBe(200);
      // The platform changes a page, then tells the host which revision that made.
      await host.stores.platform.putPage(SPACE, 'page_intro', {
        title: 'Welcome',
        markdown: '# Welcome to Acme, again',
      });
      const revision = (await host.stores.platform.getCurrentRevision(SPACE))!;
      const published = await host.admin('/v1/events', {
        method: 'POST',
        body: JSON.stringify({ type: 'space_content_updated', spaceId: SPACE, revisionId: revision.id }),
      });
      expect((await published.json()).dispatched).toEqual([
        { installationId: probe.id, integration: 'content-probe', status: 200 },
      ]);

      const [seen] = await logged('revision');
      expectValidAgainstSpec('Revision', seen);
      expect(seen).toMatchObject({
        object: 'revision',
        id: revision.id,
        type: 'edits',
        parents: [first],
        createdAt: revision.createdAt,
      });
      expect(seen.git).toBeUndefined();
      const [changes] = await logged('changes');
      expectValidAgainstSpec('RevisionSemanticChanges', changes);
      expect(changes.changes).toEqual([
        {
          type: 'page_edited',
          page: { id: 'page_intro', type: 'document', title: 'Welcome', path: 'page_intro' },
          attributes: {
            document: { before: 'page_intro@1', after: 'page_intro@2' },
            title: { before: 'Introduction', after: 'Welcome' },
          },
        },
      ]);
      const [current] = await logged('current');
      expectValidAgainstSpec('Revision', current);
      expect(current.pages.map((page: { id: string; markdown: string }) => [page.id, page.markdown])).toEqual([
        ['page_intro', '# Welcome to Acme, again'],
        ['page_api', '## Endpoints'],
      ]);

      expect((await host.stores.installations.getInstallation(probe.id))?.configuration.last_export).toBe(revision.id);
      const [exported] = await host.stores.platform.listGitRequests(SPACE);
      expect(exported).toMatchObject({
        kind: 'export',
        status: 'queued',
        installationId: probe.id,
        request: {
          url: 'https://git.example.test/acme/docs.git',
          credentials: true,
          ref: 'refs/heads/main',
          commitMessage: 'content-probe: 1 change(s)',
          timestamp: revision.createdAt,
          revision: revision.id,
        },
      });
      const line = host.logs.find((text) => text.includes(`git export of revision ${revision.id} for space ${SPACE}`));
      expect(line).toContain(
        `requested by installation ${probe.id}: https://git.example.test/acme/docs.git refs/heads/main, recorded ` +
          `as ${exported.id}`,
      );
      expect(host.logs.filter((text) => text.includes(SECRET))).toEqual([]);
      expect(JSON.stringify(await host.stores.platform.listGitRequests(SPACE))).not.toContain(SECRET);
    },
  );

  it("fails in the integration's own handler when the event names a revision the platform never recorded", async () => {
    const before = (await host.stores.platform.listGitRequests(SPACE)).length;
    const published = await host.admin('/v1/events', {
      method: 'POST',
      body: JSON.stringify({ type: 'space_content_updated', spaceId: SPACE, revisionId: 'r1' }),
    });
    expect((await published.json()).dispatched).toEqual([
      { installationId: probe.id, integration: 'content-probe', status: 500 },
    ]);
    expect((await newestEvent(host, 'content-probe')).logs.map((line) => line.text).join('\n')).toContain(
      'revision "r1" of space "space_acme_docs"',
    );
    expect(await host.stores.platform.listGitRequests(SPACE)).toHaveLength(before);
  });
});

describe("each method through @gitbook/api's client", () => {
  it('getRevisionById answers an earlier revision with the page versions it held', async () => {
    const { status, data } = await call('getRevisionById', SPACE, first);
    expect(status).toBe(200);
    expectValidAgainstSpec('Revision', data);
    expect(data).toMatchObject({
      id: first,
      parents: [],
      urls: { app: `${host.url}/v1/spaces/${SPACE}/revisions/${first}` },
    });
    expect(data.pages.map((page: { title: string; markdown: string }) => [page.title, page.markdown])).toEqual([
      ['Introduction', '# Welcome to Acme'],
      ['API reference', '## Endpoints'],
    ]);
  });

  it("getCurrentRevision answers GitBook's Revision with the platform's own listing beside it", async () => {
    const { status, data } = await call('getCurrentRevision', SPACE);
    expect(status).toBe(200);
    expectValidAgainstSpec('Revision', data);
    const current = (await host.stores.platform.getCurrentRevision(SPACE))!;
    expect(data.id).toBe(current.id);
    expect(data).toMatchObject({
      spaceId: SPACE,
      items: [
        { id: 'page_intro', revision: 2 },
        { id: 'page_api', revision: 1 },
      ],
    });
    // The space names the same revision as current.
    expect((await call('getSpaceById', SPACE)).data.revision).toBe(current.id);
  });

  it('lists the pages of a revision and of the current content', async () => {
    const inRevision = await call('listPagesInRevisionById', SPACE, first);
    expectValidAnswerOf('listPagesInRevisionById', inRevision.data);
    expect(inRevision.data.pages.map((page: { id: string; title: string }) => [page.id, page.title])).toEqual([
      ['page_intro', 'Introduction'],
      ['page_api', 'API reference'],
    ]);
    const now = await call('listPages', SPACE);
    expectValidAnswerOf('listPages', now.data);
    expect(now.data.pages.map((page: { id: string; title: string }) => [page.id, page.title])).toEqual([
      ['page_intro', 'Welcome'],
      ['page_api', 'API reference'],
    ]);
  });

  it('answers one page by id or by path, in a revision and in the current content', async () => {
    for (const [method, args, markdown] of [
      ['getPageInRevisionById', [SPACE, first, 'page_intro'], '# Welcome to Acme'],
      ['getPageInRevisionByPath', [SPACE, first, 'page_intro'], '# Welcome to Acme'],
      ['getPageById', [SPACE, 'page_intro'], '# Welcome to Acme, again'],
      ['getPageByPath', [SPACE, 'page_intro'], '# Welcome to Acme, again'],
    ] as const) {
      const { status, data } = await call(method, ...args);
      expect(status, method).toBe(200);
      expectValidAgainstSpec('RevisionPage', data);
      expectValidAnswerOf(method, data);
      expect(data, method).toMatchObject({ id: 'page_intro', type: 'document', path: 'page_intro', markdown });
    }
  });

  it("answers a first revision's changes as every page created, and bounds them by limit", async () => {
    const all = await call('getRevisionSemanticChanges', SPACE, first);
    expectValidAgainstSpec('RevisionSemanticChanges', all.data);
    expect(all.data).toEqual({
      changes: [
        {
          type: 'page_created',
          page: { id: 'page_intro', type: 'document', title: 'Introduction', path: 'page_intro' },
        },
        { type: 'page_created', page: { id: 'page_api', type: 'document', title: 'API reference', path: 'page_api' } },
      ],
    });
    const one = await call('getRevisionSemanticChanges', SPACE, first, { limit: 1 });
    expectValidAgainstSpec('RevisionSemanticChanges', one.data);
    expect(one.data).toMatchObject({ changes: [{ page: { id: 'page_intro' } }], more: 1 });
  });

  it("is GitBook's 404 for a revision, page or path the space does not have", async () => {
    for (const [method, args] of [
      ['getRevisionById', [SPACE, 'rev_0000']],
      ['getRevisionById', ['space_globex_docs', first]],
      // Another space's revision is not this space's, even with a caller that reaches both ids.
      ['getRevisionById', [SPACE, globexFirst]],
      ['getPageInRevisionById', [SPACE, first, 'page_nope']],
      ['getPageByPath', [SPACE, 'nope']],
      ['getRevisionSemanticChanges', [SPACE, 'rev_0000']],
    ] as const) {
      const answer = await call(method, ...args);
      expect(answer.status, `${method} ${JSON.stringify(args)}`).toBe(404);
      expect(answer.message).toMatch(/not found/);
    }
  });

  it("getContentByUrl resolves this host's URLs of a space, a revision and a page, and nothing else", async () => {
    const space = await call('getContentByUrl', { url: `${host.url}/v1/spaces/${SPACE}` });
    expect(space.status).toBe(200);
    expectValidAnswerOf('getContentByUrl', space.data);
    expect(space.data.space).toMatchObject({
      object: 'space',
      id: SPACE,
      urls: { app: `${host.url}/v1/spaces/${SPACE}` },
    });
    expect(space.data.page).toBeUndefined();
    const revision = await call('getContentByUrl', { url: `${host.url}/v1/spaces/${SPACE}/revisions/${first}` });
    expect([revision.status, revision.data.space.id]).toEqual([200, SPACE]);
    // A page's own urls.app, from an earlier revision: that version of it.
    const { data: listed } = await call('listPagesInRevisionById', SPACE, first);
    const page = await call('getContentByUrl', { url: listed.pages[0].urls.app });
    expectValidAnswerOf('getContentByUrl', page.data);
    expect(page.data.page).toMatchObject({ id: 'page_intro', markdown: '# Welcome to Acme' });
    const current = await call('getContentByUrl', { url: `${host.url}/v1/spaces/${SPACE}/content/page/page_intro` });
    expect(current.data.page).toMatchObject({ id: 'page_intro', markdown: '# Welcome to Acme, again' });
    for (const url of [
      `${host.url}/v1/spaces/space_globex_docs`,
      `${host.url}/v1/spaces/${SPACE}/revisions/${globexFirst}`,
      'https://docs.acme.test/',
      `${host.url}/v1/sites/site_acme`,
      `${host.url}/v1/spaces/${SPACE}/content/page/nope`,
    ]) {
      const answer = await call('getContentByUrl', { url });
      expect(answer.status, url).toBe(404);
    }
  });

  it(
    "importGitRepository answers 204 and records the request; a body GitBook's schema refuses is 400 naming the " +
      'field',
    async () => {
      const imported = await call('importGitRepository', SPACE, {
        url: `https://oauth2:${SECRET}@git.example.test/acme/docs.git`,
        ref: 'refs/heads/main',
        repoProjectDirectory: 'docs',
        force: true,
        standalone: false,
      });
      expect(imported).toEqual({ status: 204, data: null });
      const [record] = await host.stores.platform.listGitRequests(SPACE);
      expect(record).toMatchObject({
        kind: 'import',
        request: {
          url: 'https://git.example.test/acme/docs.git',
          credentials: true,
          ref: 'refs/heads/main',
          repoProjectDirectory: 'docs',
          force: true,
          standalone: false,
        },
      });
      expect(record.request?.revision).toBeUndefined();

      const noMessage = await call('exportToGitRepository', SPACE, {
        url: 'https://git.example.test/acme/docs.git',
        ref: 'refs/heads/main',
      });
      expect(noMessage).toMatchObject({ status: 400, message: 'commitMessage is required' });
      const notUrl = await call('importGitRepository', SPACE, {
        url: 'git.example.test:acme/docs',
        ref: 'refs/heads/main',
      });
      expect(notUrl).toMatchObject({
        status: 400,
        message: 'url must be the absolute URL of the repository (https, http, ssh or git)',
      });
      const stamp = await call('importGitRepository', SPACE, {
        url: 'https://git.example.test/a.git',
        ref: 'main',
        timestamp: 'yesterday',
      });
      expect(stamp).toMatchObject({ status: 400, message: 'timestamp must be an ISO 8601 date-time' });
      expect((await host.stores.platform.listGitRequests(SPACE))[0].id).toBe(record.id);
      expect(JSON.stringify(await host.stores.platform.listGitRequests(SPACE))).not.toContain(SECRET);
      // A token in the query is a credential too: neither stored nor logged.
      expect(
        (
          await call('importGitRepository', SPACE, {
            url: `https://git.example.test/acme/docs.git?private_token=${SECRET}#x`,
            ref: 'refs/heads/main',
          })
        ).status,
      ).toBe(204);
      const [withQuery] = await host.stores.platform.listGitRequests(SPACE);
      expect(withQuery.request).toMatchObject({ url: 'https://git.example.test/acme/docs.git', credentials: true });
      expect(JSON.stringify(withQuery)).not.toContain(SECRET);
      expect(host.logs.join('\n')).not.toContain(SECRET);
    },
  );
});

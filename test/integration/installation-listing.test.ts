// GET /v1/installations: every installation, filtered by integration, organization (id or
// subdomain) and target, in creation order (createdAt, then id), paginated with an opaque cursor; each item is exactly
// what GET /v1/installations/:id answers; a bad filter is a 400 naming the field.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHost, type TestHost } from '../helpers/host.ts';

let host: TestHost;
/** Ids in the listing's order: createdAt, then id (installations made in one millisecond tie). */
let created: string[] = [];
const made: { id: string; createdAt: string; label: string }[] = [];
const ids = (...labels: string[]) => labels.map((label) => made.find((entry) => entry.label === label)!.id);

async function create(label: string, integration: string, body: Record<string, unknown>): Promise<void> {
  const answer = await host.admin(`/v1/integrations/${integration}/installations`, {
    method: 'POST',
    body: JSON.stringify(body),
  });
  expect(answer.status).toBe(201);
  const view = await answer.json();
  // A space or site installation in an organization without one of this integration makes the
  // organization installation first (installations.md): it is listed too.
  if (view.parent !== undefined && !made.some((entry) => entry.id === view.parent)) {
    const parent = await (await host.admin(`/v1/installations/${view.parent}`)).json();
    made.push({ id: parent.id, createdAt: parent.createdAt, label: `${label}-parent` });
  }
  made.push({ id: view.id, createdAt: view.createdAt, label });
}

async function list(query = ''): Promise<{ status: number; body: any }> {
  const answer = await host.admin(`/v1/installations${query}`);
  return { status: answer.status, body: await answer.json() };
}

beforeAll(async () => {
  host = await startTestHost({ dirs: ['fixtures/integrations'], autoInstall: false });
  await create('hello-org', 'hello', { organization: 'acme', target: 'organization' });
  await create('hello-space', 'hello', { organization: 'acme', target: 'space', space: 'space_acme_docs' });
  await create('counter-site', 'counter', { organization: 'acme', target: 'site', site: 'site_acme' });
  await create('webhook-space', 'host:webhook', { organization: 'acme', target: 'space', space: 'space_acme_docs' });
  await create('hello-globex', 'hello', { organization: 'globex', target: 'organization' });
  created = [...made]
    .sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? -1 : 1) : a.createdAt < b.createdAt ? -1 : 1))
    .map((entry) => entry.id);
}, 60_000);

afterAll(async () => {
  await host?.close();
});

describe('GET /v1/installations', () => {
  it('lists every installation in creation order, each as GET /v1/installations/:id shows it', async () => {
    const { status, body } = await list();
    expect(status).toBe(200);
    expect(body.items.map((item: { id: string }) => item.id)).toEqual(created);
    expect(body.nextCursor).toBeNull();
    for (const item of body.items)
      expect(item).toEqual(await (await host.admin(`/v1/installations/${item.id}`)).json());
    // The webhook's signing secret is shown once, at creation, never in a listing.
    expect(JSON.stringify(body)).not.toMatch(/signingSecret/);
  });

  it('filters by integration, organization (id or subdomain) and target, combined', async () => {
    const inOrder = (wanted: string[]) => created.filter((id) => wanted.includes(id));
    const idsOf = async (query: string) => (await list(query)).body.items.map((item: { id: string }) => item.id);
    expect(await idsOf('?integration=hello')).toEqual(inOrder(ids('hello-org', 'hello-space', 'hello-globex')));
    expect(await idsOf('?organization=globex')).toEqual(ids('hello-globex'));
    expect(await idsOf('?organization=acme')).toEqual(
      inOrder(ids('hello-org', 'hello-space', 'counter-site-parent', 'counter-site', 'webhook-space')),
    );
    expect(await idsOf('?integration=counter')).toEqual(inOrder(ids('counter-site-parent', 'counter-site')));
    expect(await idsOf('?target=space')).toEqual(inOrder(ids('hello-space', 'webhook-space')));
    expect(await idsOf('?integration=hello&target=space&organization=acme')).toEqual(ids('hello-space'));
    // An integration that is not loaded (any more) may still have installations: the filter is not an error.
    expect((await list('?integration=no-such-integration')).body).toEqual({ items: [], nextCursor: null });
  });

  it('pages with limit and nextCursor through exactly the full list', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const { status, body } = await list(`?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(status).toBe(200);
      expect(body.items.length).toBeLessThanOrEqual(2);
      seen.push(...body.items.map((item: { id: string }) => item.id));
      cursor = body.nextCursor;
      pages++;
    } while (cursor !== null);
    expect(pages).toBe(3);
    expect(seen).toEqual(created);
    const hello = created.filter((id) => ids('hello-org', 'hello-space', 'hello-globex').includes(id));
    const filtered = await list('?integration=hello&limit=2');
    expect(filtered.body.items.map((item: { id: string }) => item.id)).toEqual(hello.slice(0, 2));
    const rest = await list(`?integration=hello&limit=2&cursor=${encodeURIComponent(filtered.body.nextCursor)}`);
    expect(rest.body.items.map((item: { id: string }) => item.id)).toEqual(hello.slice(2));
    expect(rest.body.nextCursor).toBeNull();
  });

  it.each([
    ['?target=galaxy', '/target', /must be one of organization, space, site/],
    ['?limit=0', '/limit', /1 to 200/],
    ['?limit=201', '/limit', /1 to 200/],
    ['?limit=ten', '/limit', /1 to 200/],
    ['?cursor=bm90LWEtY3Vyc29y', '/cursor', /nextCursor this host issued/],
    ['?integraton=hello', '/integraton', /not a filter/],
    ['?integration=a&integration=b', '/integration', /once/],
    ['?organization=', '/organization', /empty/],
  ])('answers 400 ERR_VALIDATION naming the field for %s', async (query, pointer, message) => {
    const { status, body } = await list(query);
    expect(status).toBe(400);
    expect(body.error.code).toBe('ERR_VALIDATION');
    expect(body.error.details).toEqual([{ pointer, message: expect.stringMatching(message) }]);
    expect(body.error.message).toContain(pointer.slice(1));
  });

  it('is for the admin only', async () => {
    expect((await fetch(`${host.url}/v1/installations`)).status).toBe(401);
    expect(
      (await fetch(`${host.url}/v1/installations`, { headers: { authorization: 'Bearer wrong-token-0123456789' } }))
        .status,
    ).toBe(403);
  });
});

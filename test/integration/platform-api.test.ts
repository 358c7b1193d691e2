// The platform API over HTTP with an installation token (docs/platform-api.md): every route's happy path
// and body validation, pagination, and the 401 answers for missing, forged and revoked tokens.
import { expectValidAgainstSpec } from '../helpers/gitbook-spec.ts';
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestHost, installationOf, type TestHost } from '../helpers/host.ts';
import { callApi, install, installationToken, type ApiAnswer } from '../helpers/platform-api.ts';

let host: TestHost;
let token: string;
const api = (method: string, path: string, body?: unknown): Promise<ApiAnswer> =>
  callApi(host, token, method, path, body);

beforeAll(async () => {
  host = await startTestHost({ dirs: ['fixtures/integrations', 'test/fixtures'] });
  token = await installationToken(host, installationOf(host, 'api-probe-all'));
});
afterAll(() => host?.close());

function expectValidation(answer: ApiAnswer, field: RegExp): void {
  expect(answer.status).toBe(400);
  expect(answer.body.error.code).toBe('ERR_VALIDATION');
  expect(answer.body.error.message).toMatch(field);
}

describe('space content', () => {
  it('lists the pages of a space with their revisions, without their markdown', async () => {
    const { status, body } = await api('GET', '/v1/spaces/space_acme_docs/content');
    expect(status).toBe(200);
    expect(body.spaceId).toBe('space_acme_docs');
    expect(body.items).toEqual(
      expect.arrayContaining([expect.objectContaining({ id: 'page_intro', title: 'Introduction', revision: 1 })]),
    );
    expect(body.items[0].markdown).toBeUndefined();
  });

  it('reads a page with its markdown', async () => {
    const { status, body } = await api('GET', '/v1/spaces/space_acme_docs/content/pages/page_api');
    expect(status).toBe(200);
    expect(body).toMatchObject({
      id: 'page_api',
      spaceId: 'space_acme_docs',
      title: 'API reference',
      markdown: '## Endpoints',
      revision: 1,
    });
  });

  it('answers 404 for a page that does not exist in its own space', async () => {
    expect((await api('GET', '/v1/spaces/space_acme_docs/content/pages/nope')).status).toBe(404);
  });

  it(
    'creates a page (201, revision 1, title defaults to its ' + 'id), then updates it (200, revision 2, title kept)',
    async () => {
      const created = await api('PUT', '/v1/spaces/space_acme_docs/content/pages/page_new', { markdown: 'first' });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ id: 'page_new', title: 'page_new', markdown: 'first', revision: 1 });
      await api('PUT', '/v1/spaces/space_acme_docs/content/pages/page_new', { title: 'New page', markdown: 'second' });
      const updated = await api('PUT', '/v1/spaces/space_acme_docs/content/pages/page_new', { markdown: 'third' });
      expect(updated.status).toBe(200);
      expect(updated.body).toMatchObject({ title: 'New page', markdown: 'third', revision: 3 });
      expect((await api('GET', '/v1/spaces/space_acme_docs/content/pages/page_new')).body.markdown).toBe('third');
    },
  );

  it('rejects a page body without markdown, with a wrong type or an unknown field, naming the field', async () => {
    const path = '/v1/spaces/space_acme_docs/content/pages/page_bad';
    expectValidation(await api('PUT', path, { title: 'x' }), /^markdown is required/);
    expectValidation(await api('PUT', path, { markdown: 42 }), /^markdown must be string/);
    expectValidation(await api('PUT', path, { markdown: 'x', author: 'me' }), /^author is not a known field/);
    expectValidation(await api('PUT', path, { markdown: 'x', title: '' }), /^title /);
    expect((await api('GET', path)).status).toBe(404);
  });

  it('rejects a page id outside the id rule and a body that is not JSON', async () => {
    expectValidation(
      await api('PUT', '/v1/spaces/space_acme_docs/content/pages/bad%20id', { markdown: 'x' }),
      /^page must be/,
    );
    const notJson = await api('PUT', '/v1/spaces/space_acme_docs/content/pages/page_x', '{"markdown":');
    expect(notJson.status).toBe(400);
    expect(notJson.body.error.code).toBe('ERR_BAD_REQUEST');
  });
});

describe('space metadata and Git sync', () => {
  it('reads the space metadata', async () => {
    const { status, body } = await api('GET', '/v1/spaces/space_acme_docs');
    expect(status).toBe(200);
    // The platform's fields, unchanged; GitBook's Space fields come beside them (the same path is its getSpaceById).
    expect(body).toMatchObject({
      id: 'space_acme_docs',
      organization: 'acme',
      title: 'Acme Developer Docs',
      visibility: 'public',
      description: 'Public documentation of the Acme APIs.',
      metadata: { product: 'acme-api', locale: 'en' },
    });
    expect(body).toMatchObject({
      object: 'space',
      revision: expect.stringMatching(/^rev_/),
      urls: { location: `${host.url}/v1/spaces/space_acme_docs` },
    });
    expectValidAgainstSpec('Space', body);
  });

  it('updates title, description and visibility, leaving the rest alone', async () => {
    const { status, body } = await api('PATCH', '/v1/spaces/space_acme_internal', {
      title: 'Handbook',
      visibility: 'unlisted',
    });
    expect(status).toBe(200);
    expect(body).toMatchObject({
      id: 'space_acme_internal',
      title: 'Handbook',
      visibility: 'unlisted',
      description: 'How we work at Acme.',
      organization: 'acme',
    });
  });

  it('refuses to patch anything but title, description and visibility, or an empty patch', async () => {
    expectValidation(
      await api('PATCH', '/v1/spaces/space_acme_internal', { organization: 'globex' }),
      /^organization is not a known field/,
    );
    expectValidation(
      await api('PATCH', '/v1/spaces/space_acme_internal', { visibility: 'secret' }),
      /^visibility must be one of: public, unlisted, private/,
    );
    expectValidation(await api('PATCH', '/v1/spaces/space_acme_internal', {}), /^body /);
    expect((await api('GET', '/v1/spaces/space_acme_internal')).body.organization).toBe('acme');
  });

  it('starts a Git sync: 202 with a recorded sync id', async () => {
    const { status, body } = await api('POST', '/v1/spaces/space_acme_docs/git/sync');
    expect(status).toBe(202);
    expect(body).toMatchObject({
      id: expect.stringMatching(/^sync_/),
      spaceId: 'space_acme_docs',
      status: 'queued',
      installationId: installationOf(host, 'api-probe-all'),
    });
    expectValidation(
      await api('POST', '/v1/spaces/space_acme_docs/git/sync', { branch: 'main' }),
      /^branch is not a known field/,
    );
  });
});

describe('sites', () => {
  it('reads site metadata with its spaces', async () => {
    const { status, body } = await api('GET', '/v1/sites/site_acme');
    expect(status).toBe(200);
    expect(body).toEqual({
      id: 'site_acme',
      organization: 'acme',
      title: 'docs.acme.test',
      spaces: ['space_acme_docs'],
    });
  });

  it('lists views newest first and pages through them with the cursor', async () => {
    const first = await api('GET', '/v1/sites/site_acme/views?limit=2');
    expect(first.status).toBe(200);
    expect(first.body.items.map((view: { id: string }) => view.id)).toEqual(['view_acme_3', 'view_acme_2']);
    expect(first.body.next).toEqual(expect.any(String));
    const second = await api('GET', `/v1/sites/site_acme/views?limit=2&cursor=${first.body.next}`);
    expect(second.body.items.map((view: { id: string }) => view.id)).toEqual(['view_acme_1']);
    expect(second.body.next).toBeNull();
    expect(second.body.items[0]).toEqual({
      id: 'view_acme_1',
      siteId: 'site_acme',
      spaceId: 'space_acme_docs',
      pageId: 'page_intro',
      url: 'https://docs.acme.test/',
      visitorId: 'anon_1',
      viewedAt: '2026-01-05T09:00:00Z',
    });
  });

  it('rejects a limit out of range or a cursor it did not hand out, naming the parameter', async () => {
    expectValidation(await api('GET', '/v1/sites/site_acme/views?limit=0'), /^limit /);
    expectValidation(await api('GET', '/v1/sites/site_acme/views?limit=abc'), /^limit /);
    expectValidation(await api('GET', '/v1/sites/site_acme/views?cursor=x1'), /^cursor /);
  });

  it('reads and replaces adaptive claims', async () => {
    expect((await api('GET', '/v1/sites/site_acme/adaptive')).body).toMatchObject({
      siteId: 'site_acme',
      claims: { plan: 'enterprise', region: 'eu' },
    });
    const put = await api('PUT', '/v1/sites/site_acme/adaptive', { claims: { plan: 'team', beta: true } });
    expect(put.status).toBe(200);
    expect((await api('GET', '/v1/sites/site_acme/adaptive')).body.claims).toEqual({ plan: 'team', beta: true });
    expectValidation(await api('PUT', '/v1/sites/site_acme/adaptive', { claims: ['plan'] }), /^claims must be object/);
    expectValidation(
      await api('PUT', '/v1/sites/site_acme/adaptive', { plan: 'x' }),
      /^claims is required|plan is not a known field/,
    );
  });

  it('reads and replaces the OpenAPI spec, as an object or as YAML text', async () => {
    expect((await api('GET', '/v1/sites/site_acme/openapi')).body.spec).toMatchObject({
      openapi: '3.1.0',
      info: { title: 'Acme API' },
    });
    const object = { openapi: '3.0.3', info: { title: 'v2', version: '2' }, paths: {} };
    expect((await api('PUT', '/v1/sites/site_acme/openapi', { spec: object })).status).toBe(200);
    expect((await api('GET', '/v1/sites/site_acme/openapi')).body.spec).toEqual(object);
    const text = 'swagger: "2.0"\ninfo: { title: text, version: "1" }\npaths: {}\n';
    expect((await api('PUT', '/v1/sites/site_acme/openapi', { spec: text })).status).toBe(200);
    expect((await api('GET', '/v1/sites/site_acme/openapi')).body).toMatchObject({
      siteId: 'site_acme',
      spec: text,
      updatedAt: expect.any(String),
    });
  });

  it('rejects a spec without an openapi or swagger field, unparsable text, or another type', async () => {
    expectValidation(
      await api('PUT', '/v1/sites/site_acme/openapi', { spec: { info: { title: 'x' } } }),
      /^spec must be an OpenAPI or Swagger document/,
    );
    expectValidation(
      await api('PUT', '/v1/sites/site_acme/openapi', { spec: 'openapi: [unclosed' }),
      /^spec is not valid YAML or JSON/,
    );
    expectValidation(
      await api('PUT', '/v1/sites/site_acme/openapi', { spec: 42 }),
      /^spec must be a JSON object or a string/,
    );
    expect((await api('GET', '/v1/sites/site_acme/openapi')).body.spec).toMatch(/^swagger/);
  });
});

describe('conversations', () => {
  const messages = [
    { role: 'user', content: 'How do I rotate a key?' },
    { role: 'assistant', content: 'See the API reference.' },
  ];

  it(
    "ingests a conversation into the installation's " + 'organization, optionally about one of its spaces or sites',
    async () => {
      const plain = await api('POST', '/v1/conversations', { messages });
      expect(plain.status).toBe(201);
      expect(plain.body).toMatchObject({
        id: expect.stringMatching(/^conv_/),
        organization: 'acme',
        spaceId: null,
        siteId: null,
        messages: 2,
      });
      expect((await api('POST', '/v1/conversations', { spaceId: 'space_acme_docs', messages })).body.spaceId).toBe(
        'space_acme_docs',
      );
      expect((await api('POST', '/v1/conversations', { siteId: 'site_acme', messages })).body.siteId).toBe('site_acme');
    },
  );

  it('answers 404 when the body names a space or site outside the installation', async () => {
    expect((await api('POST', '/v1/conversations', { spaceId: 'space_globex_docs', messages })).status).toBe(404);
    expect((await api('POST', '/v1/conversations', { siteId: 'site_globex', messages })).status).toBe(404);
    expect((await api('POST', '/v1/conversations', { spaceId: 'no_such_space', messages })).status).toBe(404);
  });

  it('rejects missing or empty messages, a bad role, or both a space and a site, naming the field', async () => {
    expectValidation(await api('POST', '/v1/conversations', {}), /^messages is required/);
    expectValidation(await api('POST', '/v1/conversations', { messages: [] }), /^messages /);
    expectValidation(
      await api('POST', '/v1/conversations', { messages: [{ role: 'robot', content: 'x' }] }),
      /^messages\.0\.role must be one of: user, assistant, system/,
    );
    expectValidation(
      await api('POST', '/v1/conversations', { spaceId: 'space_acme_docs', siteId: 'site_acme', messages }),
      /must name a space or a site, not both/,
    );
  });
});

describe('routing', () => {
  it('answers 405 with Allow for a known path under another method, 404 for an unknown path', async () => {
    const response = await fetch(`${host.url}/v1/spaces/space_acme_docs`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toMatch(/GET/);
    expect((await api('GET', '/v1/spaces/space_acme_docs/unknown')).status).toBe(404);
  });
});

describe('authentication', () => {
  const path = '/v1/spaces/space_acme_docs/content';

  it('answers 401 with WWW-Authenticate without a token', async () => {
    const response = await fetch(`${host.url}${path}`);
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
    expect((await response.json()).error.code).toBe('ERR_UNAUTHORIZED');
  });

  it('answers 401 for a forged token, a non-Bearer scheme or the admin token', async () => {
    expect((await callApi(host, 'iht_forged000000000000000000000000000000000000', 'GET', path)).status).toBe(401);
    const basic = await fetch(`${host.url}${path}`, { headers: { authorization: `Basic ${btoa('a:b')}` } });
    expect(basic.status).toBe(401);
    expect((await callApi(host, host.adminToken, 'GET', path)).status).toBe(401);
  });

  it('answers 401 for the token of an uninstalled (revoked) installation', async () => {
    const installation = await install(host, 'api-probe-all', {
      organization: 'acme',
      target: 'space',
      space: 'space_acme_docs',
    });
    const revoked = await installationToken(host, installation.id);
    expect((await callApi(host, revoked, 'GET', path)).status).toBe(200);
    expect((await host.admin(`/v1/installations/${installation.id}`, { method: 'DELETE' })).status).toBeLessThan(300);
    const answer = await callApi(host, revoked, 'GET', path);
    expect(answer.status).toBe(401);
    expect(answer.body.error.code).toBe('ERR_UNAUTHORIZED');
  });

  it('checks the token before revealing whether a resource exists', async () => {
    expect((await callApi(host, null, 'GET', '/v1/spaces/space_globex_docs/content')).status).toBe(401);
  });
});

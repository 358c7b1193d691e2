// Every platform API operation × scope granted or not × own or foreign resource, through HTTP
// (installation token) and through the bridge (fetch from inside an isolate): 2xx, 403
// ERR_SCOPE_DENIED, or 404 that never reveals a foreign resource. Plus token ownership on the
// bridge, forged tokens, the admin API being unreachable from guests, and narrower installations.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestHost, endpointOf, installationOf, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';
import { callApi, callThroughBridge, install, installationToken, type ApiAnswer } from '../helpers/platform-api.ts';

interface Resources {
  org: string;
  space: string;
  page: string;
  site: string;
  /** The space's first revision (recorded at seeding; read in beforeAll). */
  revision: string;
}

const OWN: Resources = { org: 'acme', space: 'space_acme_docs', page: 'page_intro', site: 'site_acme', revision: '' };
const FOREIGN: Resources = {
  org: 'globex',
  space: 'space_globex_docs',
  page: 'page_globex_home',
  site: 'site_globex',
  revision: '',
};
const REPOSITORY = { url: 'https://git.example.test/matrix.git', ref: 'refs/heads/main' };

interface Operation {
  name: string;
  method: string;
  scope: string;
  path(r: Resources): string;
  body?(r: Resources): unknown;
  okStatus: number;
}

const OPERATIONS: Operation[] = [
  {
    name: 'list pages',
    method: 'GET',
    scope: 'space:content:read',
    path: (r) => `/v1/spaces/${r.space}/content`,
    okStatus: 200,
  },
  {
    name: 'read a page',
    method: 'GET',
    scope: 'space:content:read',
    path: (r) => `/v1/spaces/${r.space}/content/pages/${r.page}`,
    okStatus: 200,
  },
  {
    name: 'write a page',
    method: 'PUT',
    scope: 'space:content:write',
    path: (r) => `/v1/spaces/${r.space}/content/pages/${r.page}`,
    body: () => ({ markdown: 'matrix' }),
    okStatus: 200,
  },
  {
    name: 'read space metadata',
    method: 'GET',
    scope: 'space:metadata:read',
    path: (r) => `/v1/spaces/${r.space}`,
    okStatus: 200,
  },
  {
    name: 'update space metadata',
    method: 'PATCH',
    scope: 'space:metadata:write',
    path: (r) => `/v1/spaces/${r.space}`,
    body: () => ({ description: 'matrix' }),
    okStatus: 200,
  },
  {
    name: 'start a Git sync',
    method: 'POST',
    scope: 'space:git:sync',
    path: (r) => `/v1/spaces/${r.space}/git/sync`,
    okStatus: 202,
  },
  // GitBook's space content and Git routes (docs/platform-api.md#revisions).
  {
    name: 'read a revision (GitBook)',
    method: 'GET',
    scope: 'space:content:read',
    path: (r) => `/v1/spaces/${r.space}/revisions/${r.revision}`,
    okStatus: 200,
  },
  {
    name: "list a revision's pages (GitBook)",
    method: 'GET',
    scope: 'space:content:read',
    path: (r) => `/v1/spaces/${r.space}/revisions/${r.revision}/pages`,
    okStatus: 200,
  },
  {
    name: 'read a page of a revision (GitBook)',
    method: 'GET',
    scope: 'space:content:read',
    path: (r) => `/v1/spaces/${r.space}/revisions/${r.revision}/page/${r.page}`,
    okStatus: 200,
  },
  {
    name: 'read a page of a revision by path (GitBook)',
    method: 'GET',
    scope: 'space:content:read',
    path: (r) => `/v1/spaces/${r.space}/revisions/${r.revision}/path/${r.page}`,
    okStatus: 200,
  },
  {
    name: "read a revision's changes (GitBook)",
    method: 'GET',
    scope: 'space:content:read',
    path: (r) => `/v1/spaces/${r.space}/revisions/${r.revision}/changes`,
    okStatus: 200,
  },
  {
    name: 'list the current pages (GitBook)',
    method: 'GET',
    scope: 'space:content:read',
    path: (r) => `/v1/spaces/${r.space}/content/pages`,
    okStatus: 200,
  },
  {
    name: 'read a current page (GitBook)',
    method: 'GET',
    scope: 'space:content:read',
    path: (r) => `/v1/spaces/${r.space}/content/page/${r.page}`,
    okStatus: 200,
  },
  {
    name: 'read a current page by path (GitBook)',
    method: 'GET',
    scope: 'space:content:read',
    path: (r) => `/v1/spaces/${r.space}/content/path/${r.page}`,
    okStatus: 200,
  },
  {
    name: 'import a Git repository (GitBook)',
    method: 'POST',
    scope: 'space:git:sync',
    path: (r) => `/v1/spaces/${r.space}/git/import`,
    body: () => REPOSITORY,
    okStatus: 204,
  },
  {
    name: 'resolve a content URL (GitBook)',
    method: 'GET',
    scope: 'space:metadata:read',
    path: (r) => `/v1/urls/content?url=${encodeURIComponent(`${host.url}/v1/spaces/${r.space}`)}`,
    okStatus: 200,
  },
  {
    name: 'export to a Git repository (GitBook)',
    method: 'POST',
    scope: 'space:git:sync',
    path: (r) => `/v1/spaces/${r.space}/git/export`,
    body: () => ({ ...REPOSITORY, commitMessage: 'matrix' }),
    okStatus: 204,
  },
  {
    name: 'read site metadata',
    method: 'GET',
    scope: 'site:metadata:read',
    path: (r) => `/v1/sites/${r.site}`,
    okStatus: 200,
  },
  {
    name: 'read site views',
    method: 'GET',
    scope: 'site:views:read',
    path: (r) => `/v1/sites/${r.site}/views`,
    okStatus: 200,
  },
  {
    name: 'read adaptive claims',
    method: 'GET',
    scope: 'site:adaptive:read',
    path: (r) => `/v1/sites/${r.site}/adaptive`,
    okStatus: 200,
  },
  {
    name: 'write adaptive claims',
    method: 'PUT',
    scope: 'site:adaptive:write',
    path: (r) => `/v1/sites/${r.site}/adaptive`,
    body: () => ({ claims: { matrix: true } }),
    okStatus: 200,
  },
  {
    name: 'read the OpenAPI spec',
    method: 'GET',
    scope: 'openapi:read',
    path: (r) => `/v1/sites/${r.site}/openapi`,
    okStatus: 200,
  },
  {
    name: 'write the OpenAPI spec',
    method: 'PUT',
    scope: 'openapi:write',
    path: (r) => `/v1/sites/${r.site}/openapi`,
    body: () => ({ spec: { openapi: '3.1.0', info: { title: 'matrix', version: '1' } } }),
    okStatus: 200,
  },
  // GitBook's paths (docs/platform-api.md#gitbooks-api): a site under its organization, and its adaptive schema
  // (written, then read).
  {
    name: 'read a site (GitBook)',
    method: 'GET',
    scope: 'site:metadata:read',
    path: (r) => `/v1/orgs/${r.org}/sites/${r.site}`,
    okStatus: 200,
  },
  {
    name: 'write the adaptive schema (GitBook)',
    method: 'PUT',
    scope: 'site:adaptive:write',
    path: (r) => `/v1/orgs/${r.org}/sites/${r.site}/adaptive-schema`,
    body: () => ({
      jsonSchema: { type: 'object', properties: { matrix: { type: 'boolean' } }, additionalProperties: false },
    }),
    okStatus: 200,
  },
  {
    name: 'read the adaptive schema (GitBook)',
    method: 'GET',
    scope: 'site:adaptive:read',
    path: (r) => `/v1/orgs/${r.org}/sites/${r.site}/adaptive-schema`,
    okStatus: 200,
  },
  // The organization is always the installation's own; "foreign" here is a foreign space named in the body.
  {
    name: 'ingest a conversation',
    method: 'POST',
    scope: 'conversations:ingest',
    path: () => '/v1/conversations',
    body: (r) => ({ spaceId: r.space, messages: [{ role: 'user', content: 'hi' }] }),
    okStatus: 201,
  },
];

type Path = 'http' | 'bridge';

let host: TestHost;
let globexReader: string;

beforeAll(async () => {
  host = await startTestHost({ dirs: ['fixtures/integrations', 'test/fixtures'] });
  // A reader inside globex, to prove foreign writes changed nothing.
  globexReader = await installationToken(
    host,
    (await install(host, 'api-probe-all', { organization: 'globex', target: 'organization' })).id,
  );
  OWN.revision = (await host.stores.platform.getCurrentRevision(OWN.space))!.id;
  FOREIGN.revision = (await host.stores.platform.getCurrentRevision(FOREIGN.space))!.id;
});
afterAll(() => host?.close());

async function call(path: Path, integration: string, op: Operation, resources: Resources): Promise<ApiAnswer> {
  const request = { method: op.method, path: op.path(resources), ...(op.body ? { body: op.body(resources) } : {}) };
  if (path === 'bridge') return callThroughBridge(endpointOf(host, integration), request);
  return callApi(
    host,
    await installationToken(host, installationOf(host, integration)),
    request.method,
    request.path,
    request.body,
  );
}

function expectAnswer(answer: ApiAnswer, status: number, code?: string): void {
  expect(answer.status).toBe(status);
  if (code !== undefined) expect(answer.body.error.code).toBe(code);
}

describe.each<Path>(['http', 'bridge'])('scope matrix over %s', (path) => {
  describe.each(OPERATIONS)('$name ($method, $scope)', (op) => {
    it('succeeds with the scope on its own resource', async () => {
      const answer = await call(path, 'api-probe-all', op, OWN);
      expect(answer.status, JSON.stringify(answer.body)).toBe(op.okStatus);
    });

    it("is 404 with the scope on another organization's resource", async () => {
      expectAnswer(await call(path, 'api-probe-all', op, FOREIGN), 404, 'ERR_NOT_FOUND');
    });

    it('is 403 ERR_SCOPE_DENIED without the scope on its own resource', async () => {
      expectAnswer(await call(path, 'api-probe-none', op, OWN), 403, 'ERR_SCOPE_DENIED');
    });

    it(
      'is 403 ERR_SCOPE_DENIED without the scope on a foreign ' + 'resource too (the same answer for any resource)',
      async () => {
        expectAnswer(await call(path, 'api-probe-none', op, FOREIGN), 403, 'ERR_SCOPE_DENIED');
      },
    );
  });
});

// A manifest holding part of the scopes: a read scope must not grant the matching write (nor a
// write the read, nor one scope its neighbour sharing a prefix), whatever the scope's spelling.
const READ_SCOPES = new Set([
  'space:content:read',
  'space:metadata:read',
  'site:metadata:read',
  'site:views:read',
  'site:adaptive:read',
  'openapi:read',
]);

describe.each<Path>(['http', 'bridge'])('partial scope sets over %s', (path) => {
  describe.each(OPERATIONS)('$name ($method, $scope)', (op) => {
    const holder = READ_SCOPES.has(op.scope) ? 'api-probe-read' : 'api-probe-write';
    const lacker = READ_SCOPES.has(op.scope) ? 'api-probe-write' : 'api-probe-read';

    it(`succeeds for the probe that holds ${op.scope} among a partial set`, async () => {
      const answer = await call(path, holder, op, OWN);
      expect(answer.status, JSON.stringify(answer.body)).toBe(op.okStatus);
    });

    it('is 403 ERR_SCOPE_DENIED for the probe holding only the other half of the scopes', async () => {
      expectAnswer(await call(path, lacker, op, OWN), 403, 'ERR_SCOPE_DENIED');
    });
  });
});

describe('foreign resources after the matrix', () => {
  it('were not changed by any refused write', async () => {
    const space = await callApi(host, globexReader, 'GET', `/v1/spaces/${FOREIGN.space}`);
    expect(space.body.description).toBe('Globex product documentation.');
    const page = await callApi(host, globexReader, 'GET', `/v1/spaces/${FOREIGN.space}/content/pages/${FOREIGN.page}`);
    expect(page.body).toMatchObject({ markdown: '# Globex', revision: 1 });
    expect((await callApi(host, globexReader, 'GET', `/v1/sites/${FOREIGN.site}/adaptive`)).body.claims).toEqual({
      plan: 'free',
    });
    expect((await callApi(host, globexReader, 'GET', `/v1/sites/${FOREIGN.site}/openapi`)).body.spec).toMatch(
      /^swagger: "2\.0"/,
    );
    expect(
      (await callApi(host, globexReader, 'GET', `/v1/orgs/${FOREIGN.org}/sites/${FOREIGN.site}/adaptive-schema`))
        .status,
    ).toBe(404);
    expect(await host.stores.platform.listGitRequests(FOREIGN.space)).toEqual([]);
  });

  it("a foreign site under its own organization's path is 404 too", async () => {
    for (const via of ['http', 'bridge'] as const) {
      const op = OPERATIONS.find((candidate) => candidate.name === 'read a site (GitBook)')!;
      expectAnswer(await call(via, 'api-probe-all', op, { ...OWN, site: FOREIGN.site }), 404, 'ERR_NOT_FOUND');
    }
  });
});

// GitBook's installation routes need no scope: the token decides what they reach (its own
// installation tree, the integration token its integration's installations).
describe.each<Path>(['http', 'bridge'])('GitBook installation routes over %s', (path) => {
  const send = async (request: { method: string; path: string; body?: unknown }) =>
    path === 'bridge'
      ? callThroughBridge(endpointOf(host, 'api-probe-all'), request)
      : callApi(
          host,
          await installationToken(host, installationOf(host, 'api-probe-all')),
          request.method,
          request.path,
          request.body,
        );
  const globexInstallation = async () =>
    (await host.stores.installations.listInstallations({ integration: 'api-probe-all' })).find(
      (one) => one.organization === 'globex',
    )!.id;

  it('reach the installation itself', async () => {
    const answer = await send({
      method: 'GET',
      path: `/v1/integrations/api-probe-all/installations/${installationOf(host, 'api-probe-all')}`,
    });
    expect(answer.status).toBe(200);
    expect(answer.body.id).toBe(installationOf(host, 'api-probe-all'));
  });

  it("are 404 on another organization's installation of the same integration, reading or writing", async () => {
    const foreign = await globexInstallation();
    expectAnswer(
      await send({ method: 'GET', path: `/v1/integrations/api-probe-all/installations/${foreign}` }),
      404,
      'ERR_NOT_FOUND',
    );
    expectAnswer(
      await send({
        method: 'PATCH',
        path: `/v1/integrations/api-probe-all/installations/${foreign}`,
        body: { externalIds: ['matrix'] },
      }),
      404,
      'ERR_NOT_FOUND',
    );
    expect((await host.stores.installations.getInstallation(foreign))?.externalIds).toEqual([]);
  });

  it("are 404 on another integration's installation, under either name", async () => {
    const other = installationOf(host, 'api-probe-none');
    expectAnswer(
      await send({ method: 'GET', path: `/v1/integrations/api-probe-none/installations/${other}` }),
      404,
      'ERR_NOT_FOUND',
    );
    expectAnswer(
      await send({ method: 'GET', path: `/v1/integrations/api-probe-all/installations/${other}` }),
      404,
      'ERR_NOT_FOUND',
    );
  });

  it('refuse an installation token the integration-only token route', async () => {
    expectAnswer(
      await send({
        method: 'POST',
        path: `/v1/integrations/api-probe-all/installations/${installationOf(host, 'api-probe-all')}/tokens`,
      }),
      403,
      'ERR_FORBIDDEN',
    );
  });
});

describe('tokens on the bridge', () => {
  const listPages = { method: 'GET', path: `/v1/spaces/${OWN.space}/content` };

  it("refuses another integration's valid installation token with 401", async () => {
    const othersToken = await installationToken(host, installationOf(host, 'api-probe-none'));
    // Valid over HTTP (and it lacks the scope there), but over the bridge it is not the caller's own.
    expectAnswer(await callApi(host, othersToken, listPages.method, listPages.path), 403, 'ERR_SCOPE_DENIED');
    expectAnswer(
      await callThroughBridge(endpointOf(host, 'api-probe-all'), { ...listPages, token: othersToken }),
      401,
      'ERR_UNAUTHORIZED',
    );
  });

  it('refuses a forged token with 401', async () => {
    expectAnswer(
      await callThroughBridge(endpointOf(host, 'api-probe-all'), {
        ...listPages,
        token: 'iht_forged0000000000000000000000000000000000',
      }),
      401,
      'ERR_UNAUTHORIZED',
    );
  });

  it('does not reach the admin API: /v1/integrations through the bridge is 404', async () => {
    const answer = await callThroughBridge(endpointOf(host, 'api-probe-all'), {
      method: 'GET',
      path: '/v1/integrations',
    });
    expectAnswer(answer, 404, 'ERR_NOT_FOUND');
    expect(JSON.stringify(answer.body)).not.toContain('api-probe-none');
  });

  it('does not reach an installation record through the bridge either', async () => {
    const answer = await callThroughBridge(endpointOf(host, 'api-probe-all'), {
      method: 'GET',
      path: `/v1/installations/${installationOf(host, 'api-probe-all')}`,
    });
    expectAnswer(answer, 404, 'ERR_NOT_FOUND');
  });
});

describe('narrower installations', () => {
  const readSpace = (space: string) => ({ method: 'GET', path: `/v1/spaces/${space}/content` });
  const readSite = (site: string) => ({ method: 'GET', path: `/v1/sites/${site}` });

  it(
    'an organization installation with space_selection covers ' + 'only the selected space (and sites showing it)',
    async () => {
      const installation = await install(host, 'api-probe-all', {
        organization: 'acme',
        target: 'organization',
        space_selection: ['space_acme_docs'],
      });
      const token = await installationToken(host, installation.id);
      for (const via of ['http', 'bridge'] as const) {
        const send = (request: { method: string; path: string }) =>
          via === 'http'
            ? callApi(host, token, request.method, request.path)
            : callThroughBridge(installation.urls.publicEndpoint, request);
        expect((await send(readSpace('space_acme_docs'))).status).toBe(200);
        expectAnswer(await send(readSpace('space_acme_internal')), 404, 'ERR_NOT_FOUND');
        expect((await send(readSite('site_acme'))).status).toBe(200);
      }
    },
  );

  it(
    'an organization installation with space_selection does ' + 'not reach a site showing only unselected spaces',
    async () => {
      // The handbook site shows only space_acme_internal: readable with "all", not with a selection leaving it out.
      const everything = await install(host, 'api-probe-all', {
        organization: 'acme',
        target: 'organization',
        space_selection: 'all',
      });
      const docsOnly = await install(host, 'api-probe-all', {
        organization: 'acme',
        target: 'organization',
        space_selection: ['space_acme_docs'],
      });
      const handbookOnly = await install(host, 'api-probe-all', {
        organization: 'acme',
        target: 'organization',
        space_selection: ['space_acme_internal'],
      });
      for (const via of ['http', 'bridge'] as const) {
        const send = async (
          installation: { id: string; urls: { publicEndpoint: string } },
          request: { method: string; path: string },
        ) =>
          via === 'http'
            ? callApi(host, await installationToken(host, installation.id), request.method, request.path)
            : callThroughBridge(installation.urls.publicEndpoint, request);
        for (const request of [
          readSite('site_acme_handbook'),
          { method: 'GET', path: '/v1/sites/site_acme_handbook/views' },
          { method: 'GET', path: '/v1/sites/site_acme_handbook/adaptive' },
        ]) {
          expect((await send(everything, request)).status, `${via} ${request.path} with "all"`).toBe(200);
          expect((await send(handbookOnly, request)).status, `${via} ${request.path} with the handbook selected`).toBe(
            200,
          );
          expectAnswer(await send(docsOnly, request), 404, 'ERR_NOT_FOUND');
        }
        expectAnswer(await send(handbookOnly, readSite('site_acme')), 404, 'ERR_NOT_FOUND');
        expectAnswer(await send(handbookOnly, readSpace('space_acme_docs')), 404, 'ERR_NOT_FOUND');
      }
    },
  );

  it('a space installation covers its space only, no site', async () => {
    const installation = await install(host, 'api-probe-all', {
      organization: 'acme',
      target: 'space',
      space: 'space_acme_docs',
    });
    const token = await installationToken(host, installation.id);
    expect((await callApi(host, token, 'GET', '/v1/spaces/space_acme_docs/content')).status).toBe(200);
    expectAnswer(await callApi(host, token, 'GET', '/v1/spaces/space_acme_internal/content'), 404, 'ERR_NOT_FOUND');
    expectAnswer(await callApi(host, token, 'GET', '/v1/sites/site_acme'), 404, 'ERR_NOT_FOUND');
  });

  it('a site installation covers its site only, no space', async () => {
    const installation = await install(host, 'api-probe-all', {
      organization: 'acme',
      target: 'site',
      site: 'site_acme',
    });
    const token = await installationToken(host, installation.id);
    expect((await callApi(host, token, 'GET', '/v1/sites/site_acme/views')).status).toBe(200);
    expectAnswer(await callApi(host, token, 'GET', '/v1/spaces/space_acme_docs/content'), 404, 'ERR_NOT_FOUND');
  });
});

describe('afterwards', () => {
  it('leaves the host and its neighbour answering', async () => {
    await expectHostHealthy(host);
  });
});

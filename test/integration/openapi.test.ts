// Real answers of the real host against the OpenAPI document it serves at GET /openapi.json: each
// documented route is called for its success and a client error, and every answer's status must be
// documented for that operation, its type one the response lists and its JSON body valid against it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withDevDefaults } from '../../host/config/dev-env.ts';
import { ADMIN_TOKEN, installationOf, startTestHost, waitFor, type TestHost } from '../helpers/host.ts';
import { documentAjv, fillPath, HTTP_METHODS, operationsOf, responseOf, type Doc } from '../helpers/openapi.ts';
import { install, installationToken, integrationToken } from '../helpers/platform-api.ts';
import { integrationFiles, tarGz } from '../helpers/archives.ts';

let host: TestHost;
let doc: Doc;
let ajv: ReturnType<typeof documentAjv>;
let receiver: http.Server;
let receiverUrl = '';
const SECRETS_KEYS = `1:${Buffer.alloc(32, 9).toString('base64')}`;

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  host = await startTestHost({
    dirs: [
      'fixtures/integrations',
      'test/fixtures/api-probe-all',
      'test/fixtures/secret-echo',
      'test/fixtures/gitbook-probe/wire-echo',
      'test/fixtures/site-script-probe',
    ],
    env: { ...withDevDefaults(process.env).env, HOST_SECRETS_KEYS: SECRETS_KEYS },
    allowEgress: ['127.0.0.1'],
    firstPartyIntegrations: ['script-echo'],
    consolePort: 0,
  });
  const served = await fetch(`${host.url}/openapi.json`);
  doc = await served.json();
  ajv = documentAjv(doc);
});
afterAll(async () => {
  await host?.close();
  await new Promise<void>((resolve) => receiver?.close(() => resolve()));
});

/** A route: one path and method, or one path for a route that takes every method OpenAPI names. */
function routeOf(path: string, method: string): string {
  return HTTP_METHODS.every((any) => doc.paths[path]?.[any] !== undefined)
    ? `ANY ${path}`
    : `${method.toUpperCase()} ${path}`;
}
const seen = new Map<string, Set<number>>();

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

interface Call {
  params?: Record<string, string>;
  query?: string;
  token?: string | null;
  body?: unknown;
  init?: RequestInit;
}

/**
 * Calls the documented operation `method template` and checks the answer against the document:
 * its status is documented, its media type listed, its JSON body valid.
 */
async function call(
  method: string,
  template: string,
  { params = {}, query = '', token = ADMIN_TOKEN, body, init = {} }: Call = {},
): Promise<Answer> {
  const operation = operationsOf(doc).find((candidate) => candidate.path === template && candidate.method === method);
  expect(operation, `${method} ${template} is documented`).toBeDefined();
  const headers = new Headers(init.headers);
  if (token !== null && !headers.has('authorization')) headers.set('authorization', `Bearer ${token}`);
  if (body !== undefined && !headers.has('content-type')) headers.set('content-type', 'application/json');
  const response = await fetch(`${host.url}${fillPath(template, params)}${query}`, {
    method: method.toUpperCase(),
    redirect: 'manual',
    ...init,
    headers,
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  const answer: Answer = { status: response.status, headers: response.headers, text, json: undefined };
  const route = routeOf(template, method);
  seen.set(route, (seen.get(route) ?? new Set()).add(response.status));

  const documented = responseOf(doc, operation!, response.status);
  expect(
    documented,
    `${response.status} is documented for ${method.toUpperCase()} ${template} (body ${text.slice(0, 200)})`,
  ).toBeDefined();
  const type = (response.headers.get('content-type') ?? '').split(';')[0].trim();
  if (/^application\/([\w.-]+\+)?json$/.test(type)) answer.json = JSON.parse(text);
  const content: Record<string, any> | undefined = documented!.response.content;
  if (content === undefined) return answer;
  const mediaType = Object.keys(content).find(
    (listed) => listed === type || listed === '*/*' || (listed.endsWith('/*') && type.startsWith(listed.slice(0, -1))),
  );
  expect(mediaType, `${type} is listed for ${response.status} of ${method.toUpperCase()} ${template}`).toBeDefined();
  if (answer.json !== undefined && content[mediaType!].schema !== undefined) {
    const validate = ajv.validatorAt(`${documented!.pointer}/content/${mediaType!.replaceAll('/', '~1')}/schema`);
    const problems = validate(answer.json)
      ? []
      : (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message}`);
    expect(problems, `${response.status} of ${method.toUpperCase()} ${template}: ${text.slice(0, 300)}`).toEqual([]);
  }
  return answer;
}

const helloId = () => installationOf(host, 'hello');

describe('the served document', () => {
  it('is the OpenAPI 3.1 document, as JSON, for anyone, revalidated by its ETag', async () => {
    const first = await call('get', '/openapi.json', { token: null });
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toMatch(/^application\/json/);
    expect(first.headers.get('cache-control')).toBe('no-cache');
    expect(first.json.openapi).toMatch(/^3\.1\./);
    const again = await call('get', '/openapi.json', {
      token: null,
      init: { headers: { 'if-none-match': first.headers.get('etag')!, 'cache-control': 'max-age=0' } },
    });
    expect(again.status).toBe(304);
  });

  it('describes the console redirect when the console runs', async () => {
    expect((await call('get', '/console', { token: null })).status).toBe(302);
    expect((await call('get', '/console/{rest}', { token: null, params: { rest: 'events' } })).status).toBe(302);
  });
});

describe('operations routes answer as documented', () => {
  it('health, readiness and metrics (401 without the admin token, 403 with a wrong one)', async () => {
    expect((await call('get', '/health', { token: null })).status).toBe(200);
    expect((await call('get', '/', { token: null, init: { headers: { accept: 'application/json' } } })).status).toBe(
      404,
    );
    expect((await call('get', '/', { token: null, init: { headers: { accept: 'text/html' } } })).text).toContain(
      '/openapi.json',
    );
    expect((await call('get', '/ready', { token: null })).status).toBe(200);
    expect((await call('get', '/metrics')).status).toBe(200);
    expect((await call('get', '/metrics', { token: null })).status).toBe(401);
    expect((await call('get', '/metrics', { token: 'not-the-admin-token' })).status).toBe(403);
  });
});

describe('integration and secret routes answer as documented', () => {
  it('lists integrations and reads one; 401 without the token, 404 for an unknown one', async () => {
    expect((await call('get', '/v1/integrations')).json.items.length).toBeGreaterThan(3);
    expect((await call('get', '/v1/integrations', { token: null })).status).toBe(401);
    expect((await call('get', '/v1/integrations/{name}', { params: { name: 'wire-echo' } })).status).toBe(200);
    expect((await call('get', '/v1/integrations/{name}', { params: { name: 'secret-echo' } })).json.status).toBe(
      'invalid',
    );
    expect((await call('get', '/v1/integrations/{name}', { params: { name: 'nope' } })).status).toBe(404);
  });

  it('lists, stores and removes secrets; 400 for a value of the wrong type, 404 for what is not there', async () => {
    const params = { name: 'secret-echo', secret: 'VENDOR_CLIENT_ID' };
    expect((await call('get', '/v1/integrations/{name}/secrets', { params })).status).toBe(200);
    expect((await call('get', '/v1/integrations/{name}/secrets', { params: { name: 'nope' } })).status).toBe(404);
    expect(
      (await call('put', '/v1/integrations/{name}/secrets/{secret}', { params, body: { value: 'client-id' } })).status,
    ).toBe(201);
    expect(
      (await call('put', '/v1/integrations/{name}/secrets/{secret}', { params, body: { value: 'client-id-2' } }))
        .status,
    ).toBe(200);
    expect((await call('put', '/v1/integrations/{name}/secrets/{secret}', { params, body: { value: 1 } })).status).toBe(
      400,
    );
    expect(
      (
        await call('put', '/v1/integrations/{name}/secrets/{secret}', {
          params,
          body: 'value',
          init: { headers: { 'content-type': 'text/plain' } },
        })
      ).status,
    ).toBe(415);
    expect((await call('delete', '/v1/integrations/{name}/secrets/{secret}', { params })).status).toBe(204);
    expect((await call('delete', '/v1/integrations/{name}/secrets/{secret}', { params })).status).toBe(404);
  });
});

describe('installation routes answer as documented', () => {
  it(
    'creates, lists, reads, configures and deletes an ' + 'installation; 400 for a bad body or filter, 404 once gone',
    async () => {
      const created = await call('post', '/v1/integrations/{name}/installations', {
        params: { name: 'hello' },
        body: { organization: 'acme', target: 'space', space: 'space_acme_docs' },
      });
      expect(created.status).toBe(201);
      expect(
        (
          await call('post', '/v1/integrations/{name}/installations', {
            params: { name: 'hello' },
            body: { target: 'moon' },
          })
        ).status,
      ).toBe(400);
      expect(
        (
          await call('post', '/v1/integrations/{name}/installations', {
            params: { name: 'nope' },
            body: { organization: 'acme', target: 'organization' },
          })
        ).status,
      ).toBe(404);
      expect((await call('get', '/v1/installations', { query: '?limit=2' })).json.items).toHaveLength(2);
      expect((await call('get', '/v1/installations', { query: '?bogus=1' })).status).toBe(400);
      const id = created.json.id as string;
      expect((await call('get', '/v1/installations/{id}', { params: { id } })).json.id).toBe(id);
      expect((await call('patch', '/v1/installations/{id}/configuration', { params: { id }, body: {} })).status).toBe(
        200,
      );
      expect(
        (
          await call('patch', '/v1/installations/{id}/configuration', {
            params: { id },
            body: '{',
            init: { headers: { 'content-type': 'application/json' } },
          })
        ).status,
      ).toBe(400);
      expect((await call('delete', '/v1/installations/{id}', { params: { id } })).status).toBe(204);
      expect((await call('delete', '/v1/installations/{id}', { params: { id } })).status).toBe(404);
      expect((await call('get', '/v1/installations/{id}', { params: { id } })).status).toBe(404);
    },
  );

  it('completes a property; 404 for an unknown installation', async () => {
    const id = installationOf(host, 'oauth-demo');
    expect(
      (await call('get', '/v1/installations/{id}/completions/{property}', { params: { id, property: 'channel' } })).json
        .items.length,
    ).toBeGreaterThan(0);
    expect(
      (
        await call('get', '/v1/installations/{id}/completions/{property}', {
          params: { id: 'inst_nope', property: 'channel' },
        })
      ).status,
    ).toBe(404);
  });

  it('renders a component; 400 without a componentId', async () => {
    const params = { id: installationOf(host, 'counter') };
    const rendered = await call('post', '/v1/installations/{id}/render', {
      params,
      body: { componentId: 'counter', props: {}, state: { count: 4 }, action: { action: 'increment' } },
    });
    expect(rendered.json.type).toBe('element');
    expect((await call('post', '/v1/installations/{id}/render', { params, body: {} })).status).toBe(400);
    expect(
      (
        await call('post', '/v1/installations/{id}/render', {
          params: { id: 'inst_nope' },
          body: { componentId: 'counter' },
        })
      ).status,
    ).toBe(404);
  });

  it('takes an envelope; 400 for an unsupported version', async () => {
    const form = new FormData();
    const url = `${host.url}/v1/integrations/hello/installations/${helloId()}`;
    form.set(
      'event',
      JSON.stringify({ type: 'fetch', installationId: helloId(), request: { method: 'POST', url, headers: {} } }),
    );
    form.set('fetch-body', 'hi');
    expect((await call('post', '/{version}', { params: { version: 'v1' }, init: { body: form } })).json).toEqual({
      received: true,
    });
    expect((await call('post', '/{version}', { params: { version: 'v2' }, init: { body: form } })).status).toBe(400);
  });
});

describe('public endpoints, assets and site scripts answer as documented', () => {
  it(
    "passes on the integration's answer on both endpoints and below them; 404 for an unknown installation or " +
      'integration',
    async () => {
      const params = { name: 'hello', id: helloId(), rest: 'deeper/path' };
      expect((await call('post', '/v1/integrations/{name}/installations/{id}', { token: null, params })).status).toBe(
        200,
      );
      expect((await call('get', '/v1/integrations/{name}/installations/{id}', { token: null, params })).status).toBe(
        405,
      );
      expect(
        (
          await call('post', '/v1/integrations/{name}/installations/{id}', {
            token: null,
            params: { ...params, id: 'inst_nope' },
          })
        ).status,
      ).toBe(404);
      expect(
        (
          await call('post', '/v1/integrations/{name}/installations/{id}/{rest}', {
            token: null,
            params: { ...params, rest: 'deeper' },
          })
        ).status,
      ).toBe(200);
      expect(
        (
          await call('post', '/v1/integrations/{name}/installations/{id}/{rest}', {
            token: null,
            params: { ...params, name: 'counter', rest: 'deeper' },
          })
        ).status,
      ).toBe(404);
      expect((await call('post', '/v1/integrations/{name}/integration', { token: null, params })).status).toBe(200);
      expect(
        (await call('post', '/v1/integrations/{name}/integration', { token: null, params: { name: 'nope' } })).status,
      ).toBe(404);
      expect(
        (
          await call('post', '/v1/integrations/{name}/integration/{rest}', {
            token: null,
            params: { name: 'hello', rest: 'callback' },
          })
        ).status,
      ).toBe(200);
      expect(
        (
          await call('post', '/v1/integrations/{name}/integration/{rest}', {
            token: null,
            params: { name: 'nope', rest: 'callback' },
          })
        ).status,
      ).toBe(404);
    },
  );

  it('serves an asset; 404 for a file that is not there', async () => {
    expect(
      (
        await call('get', '/v1/integrations/{name}/assets/{path}', {
          token: null,
          params: { name: 'wire-echo', path: 'icon.png' },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await call('get', '/v1/integrations/{name}/assets/{path}', {
          token: null,
          params: { name: 'wire-echo', path: 'missing.png' },
        })
      ).status,
    ).toBe(404);
  });

  it("lists a site's scripts and serves one; 404 for an installation that serves none", async () => {
    const id = (await install(host, 'script-echo', { organization: 'acme', target: 'site', site: 'site_acme' })).id;
    expect(
      (await call('patch', '/v1/installations/{id}/configuration', { params: { id }, body: { key: 'k-1' } })).status,
    ).toBe(200);
    expect(
      (await call('get', '/v1/site-scripts/{site}', { token: null, params: { site: 'site_acme' } })).json.items,
    ).toHaveLength(1);
    expect(
      (
        await call('get', '/v1/site-scripts/{site}/{installation}', {
          token: null,
          params: { site: 'site_acme', installation: id },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await call('get', '/v1/site-scripts/{site}/{installation}', {
          token: null,
          params: { site: 'site_acme', installation: helloId() },
        })
      ).status,
    ).toBe(404);
  });
});

describe('event routes answer as documented', () => {
  it('lists the event log and reads one entry; 400 for a bad limit, 404 for an unknown event', async () => {
    const params = { name: 'hello' };
    const [newest] = (await call('get', '/v1/integrations/{name}/events', { params, query: '?limit=1' })).json.items;
    expect((await call('get', '/v1/integrations/{name}/events', { params, query: '?limit=0' })).status).toBe(400);
    expect(
      (
        await call('get', '/v1/integrations/{name}/events/{eventId}', {
          params: { ...params, eventId: newest.eventId },
        })
      ).json.eventId,
    ).toBe(newest.eventId);
    expect(
      (await call('get', '/v1/integrations/{name}/events/{eventId}', { params: { ...params, eventId: 'evt_nope' } }))
        .status,
    ).toBe(404);
  });

  it('follows the event log as server-sent events; 400 for an unknown parameter', async () => {
    const operation = operationsOf(doc).find(
      (candidate) => candidate.path === '/v1/integrations/{name}/events/stream' && candidate.method === 'get',
    )!;
    const aborted = new AbortController();
    const response = await fetch(`${host.url}/v1/integrations/hello/events/stream`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      signal: aborted.signal,
    });
    seen.set(routeOf(operation.path, 'get'), new Set([response.status]));
    expect(Object.keys(responseOf(doc, operation, response.status)!.response.content)).toContain(
      response.headers.get('content-type')!.split(';')[0],
    );
    const first = await response.body!.getReader().read();
    expect(new TextDecoder().decode(first.value)).toMatch(/^: following hello/);
    aborted.abort();
    expect(
      (await call('get', '/v1/integrations/{name}/events/stream', { params: { name: 'hello' }, query: '?bogus=1' }))
        .status,
    ).toBe(400);
  });

  it('lists tasks and owed events; 400 for a bad limit, 404 for an unknown installation', async () => {
    expect((await call('get', '/v1/integrations/{name}/tasks', { params: { name: 'hello' } })).status).toBe(200);
    expect(
      (await call('get', '/v1/integrations/{name}/tasks', { params: { name: 'hello' }, query: '?limit=x' })).status,
    ).toBe(400);
    expect((await call('get', '/v1/installations/{id}/owed-events', { params: { id: helloId() } })).status).toBe(200);
    expect((await call('get', '/v1/installations/{id}/owed-events', { params: { id: 'inst_nope' } })).status).toBe(404);
  });

  it(
    'publishes an event to a webhook, lists, redelivers and ' + 'rotates; 400 for a bad event, 404 for unknown ids',
    async () => {
      const webhook = await call('post', '/v1/integrations/{name}/installations', {
        params: { name: 'host:webhook' },
        body: { organization: 'acme', target: 'space', space: 'space_acme_docs' },
      });
      const id = webhook.json.id as string;
      expect(
        (
          await call('patch', '/v1/installations/{id}/configuration', {
            params: { id },
            body: { url: receiverUrl, events: ['space_content_updated'] },
          })
        ).status,
      ).toBe(200);
      expect(
        (
          await call('post', '/v1/events', {
            body: { type: 'space_content_updated', spaceId: 'space_acme_docs', revisionId: 'rev_1' },
          })
        ).status,
      ).toBe(202);
      expect((await call('post', '/v1/events', { body: { type: 42 } })).status).toBe(400);
      await waitFor(
        async () =>
          (await host.admin(`/v1/installations/${id}/deliveries`).then((r) => r.json())).items[0]?.status ===
          'succeeded',
      );
      const [delivery] = (await call('get', '/v1/installations/{id}/deliveries', { params: { id } })).json.items;
      expect((await call('get', '/v1/installations/{id}/deliveries', { params: { id: 'inst_nope' } })).status).toBe(
        404,
      );
      expect((await call('post', '/v1/deliveries/{id}/redeliver', { params: { id: delivery.id } })).status).toBe(202);
      expect((await call('post', '/v1/deliveries/{id}/redeliver', { params: { id: 'dlv_nope' } })).status).toBe(404);
      expect(
        (await call('post', '/v1/installations/{id}/signing-secret', { params: { id } })).json.signingSecret,
      ).toEqual(expect.any(String));
      expect((await call('post', '/v1/installations/{id}/signing-secret', { params: { id: helloId() } })).status).toBe(
        404,
      );
    },
  );
});

describe('the platform API prefixes answer as documented', () => {
  it('pass calls with an API token through; 401 without one', async () => {
    const token = await installationToken(host, installationOf(host, 'api-probe-all'));
    const forIntegration = await integrationToken(host, 'api-probe-all');
    const calls: [string, string, Record<string, string>, string?, unknown?][] = [
      ['get', '/v1/spaces/{rest}', { rest: 'space_acme_docs' }],
      ['get', '/v1/sites/{rest}', { rest: 'site_acme' }],
      ['get', '/v1/orgs/{rest}', { rest: 'acme' }],
      [
        'get',
        '/v1/urls/{rest}',
        { rest: 'content' },
        `?url=${encodeURIComponent(`${host.url}/v1/spaces/space_acme_docs`)}`,
      ],
      ['post', '/v1/conversations', {}, '', { messages: [{ role: 'user', content: 'hello' }] }],
      ['patch', '/v1/installation/{rest}', { rest: 'configuration' }, '', {}],
    ];
    for (const [method, template, params, query = '', body] of calls) {
      const answer = await call(method, template, { token, params, query, body });
      expect(answer.status, `${method} ${template}: ${answer.text}`).toBeLessThan(300);
      expect((await call(method, template, { token: null, params, query, body })).status).toBe(401);
    }
    for (const template of ['/v1/integrations/{name}/spaces', '/v1/integrations/{name}/sites']) {
      expect((await call('get', template, { token: forIntegration, params: { name: 'api-probe-all' } })).status).toBe(
        200,
      );
      expect((await call('get', template, { token: null, params: { name: 'api-probe-all' } })).status).toBe(401);
    }
    // No platform route answers at the prefix itself, with a token or without.
    expect((await call('get', '/v1/installation', { token })).status).toBe(404);
    expect((await call('get', '/v1/installation', { token: null })).status).toBe(404);
  });
});

describe('publishing routes answer as documented', () => {
  it('issues, lists and revokes publishers; publishes, lists and rolls back versions; refuses bad input', async () => {
    const issued = await call('post', '/v1/publishers', { body: { organization: 'acme', label: 'openapi' } });
    expect(issued.status).toBe(201);
    expect((await call('post', '/v1/publishers', { body: { organization: 'a b' } })).status).toBe(400);
    expect((await call('get', '/v1/publishers')).json.items.length).toBeGreaterThan(0);
    expect((await call('get', '/v1/publishers', { token: null })).status).toBe(401);
    const archive = (greeting: string) => ({
      init: {
        body: new Uint8Array(tarGz(integrationFiles('documented', 'acme', greeting))),
        headers: { 'content-type': 'application/gzip' },
      },
    });
    const params = { name: 'documented' };
    const token = issued.json.token as string;
    expect((await call('post', '/v1/integrations/{name}/versions', { params, token, ...archive('one') })).status).toBe(
      201,
    );
    expect((await call('post', '/v1/integrations/{name}/versions', { params, token, ...archive('one') })).status).toBe(
      200,
    );
    expect((await call('post', '/v1/integrations/{name}/versions', { params, ...archive('two') })).status).toBe(201);
    const notGzip = { init: { body: 'not a tar', headers: { 'content-type': 'application/gzip' } } };
    expect((await call('post', '/v1/integrations/{name}/versions', { params, ...notGzip })).status).toBe(400);
    expect((await call('post', '/v1/integrations/{name}/versions', { params, body: {} })).status).toBe(415);
    expect((await call('get', '/v1/integrations/{name}/versions', { params, token })).json.items.length).toBe(2);
    expect((await call('get', '/v1/integrations/{name}/versions', { params: { name: 'never' } })).status).toBe(404);
    const current = '/v1/integrations/{name}/versions/{version}/current';
    expect((await call('post', current, { params: { ...params, version: '1' }, token })).json.current).toBe(true);
    expect((await call('post', current, { params: { ...params, version: '9' } })).status).toBe(404);
    expect((await call('post', current, { params: { ...params, version: 'x' } })).status).toBe(400);
    expect((await call('delete', '/v1/publishers/{id}', { params: { id: issued.json.id } })).status).toBe(204);
    expect((await call('delete', '/v1/publishers/{id}', { params: { id: issued.json.id } })).status).toBe(404);
  });
});

describe('the exercise as a whole', () => {
  it('called every documented route for a success and a client error, where it documents them', () => {
    const routes = new Map<string, { success: boolean; clientError: boolean }>();
    for (const { path, method, operation } of operationsOf(doc)) {
      const keys = Object.keys(operation.responses);
      const entry = routes.get(routeOf(path, method)) ?? { success: false, clientError: false };
      entry.success ||= keys.some((key) => /^[23]/.test(key) || key === 'default');
      entry.clientError ||= keys.some((key) => /^4/.test(key) || key === 'default');
      routes.set(routeOf(path, method), entry);
    }
    const missing = [...routes].flatMap(([route, wanted]) => {
      const statuses = [...(seen.get(route) ?? [])];
      return [
        ...(wanted.success && !statuses.some((status) => status < 400) ? [`${route}: no success`] : []),
        ...(wanted.clientError && !statuses.some((status) => status >= 400 && status < 500)
          ? [`${route}: no client error`]
          : []),
      ];
    });
    expect(missing).toEqual([]);
  });
});

// The OpenAPI paths anyone may call (health, readiness, this document, public endpoints, assets,
// site scripts, the console redirect) and the platform API's pass-through prefixes (API tokens).
// Data only; answers an integration writes are described as free-form, never guessed.

import { errors, json, pathParam, ref, type Json } from './components.ts';

/** Methods a route registered for every method answers that OpenAPI 3.1 can name (HEAD included). */
export const ANY_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

const name = pathParam('name', "An integration's manifest name.");
const rest = pathParam(
  'rest',
  'The rest of the path: one or more segments (the route matches ' +
    'any depth, which an OpenAPI path parameter cannot say).',
);
const integrationAnswer = { description: "The integration's response, passed on (status, headers, body)." };
const SANDBOX_ERRORS = [502, 503, 504];

function open(id: string, tag: string, summary: string, responses: Record<string, Json>, extra: Json = {}): Json {
  return { operationId: id, tags: [tag], summary, security: [{}], ...extra, responses };
}

/** One operation per method OpenAPI can name, for a route that takes any method. */
function anyMethod(idPrefix: string, operation: (method: string) => Json): Json {
  return Object.fromEntries(
    ANY_METHODS.map((method) => [method, { operationId: `${idPrefix}_${method}`, ...operation(method) }]),
  );
}

function publicEndpoint(kind: 'installation' | 'integration', idPrefix: string, parameters: Json[]): Json {
  const summary =
    kind === 'installation'
      ? "An installation's public endpoint: the request becomes a `fetch` event"
      : "The integration's own endpoint (GitBook's " +
        '`integration.urls.publicEndpoint`): a `fetch` event with no ' +
        'installation';
  return anyMethod(idPrefix, (method) => ({
    tags: ['public endpoints'],
    summary,
    description:
      'Open to anyone. A request bearing a host API token is a platform API call instead. ' +
      '`CONNECT`, `TRACE` and `TRACK` are 405. Methods OpenAPI cannot name are served too.',
    security: [{}],
    parameters,
    ...(method === 'get' || method === 'head' || method === 'trace'
      ? {}
      : { requestBody: { required: false, content: { '*/*': { schema: {} } } } }),
    responses:
      method === 'trace'
        ? errors(405)
        : { default: integrationAnswer, ...errors(400, 403, 404, 413, 500, ...SANDBOX_ERRORS) },
  }));
}

/** A prefix the platform API serves (docs/platform-api.md lists its routes and answers). */
function platformApi(
  idPrefix: string,
  summary: string,
  parameters: Json[],
  answers: 'routes' | 'none' = 'routes',
): Json {
  const responses =
    answers === 'routes'
      ? {
          default: {
            description: "The platform API's answer (JSON).",
            content: { 'application/json': { schema: {} } },
          },
          ...errors(401),
        }
      : errors(404);
  return anyMethod(idPrefix, () => ({
    tags: ['platform API'],
    summary,
    description:
      "The platform API and GitBook's routes, authenticated by the token alone " +
      '(docs/platform-api.md). An unknown path under the prefix is 404, another method ' +
      '405.',
    security: [{ apiToken: [] }],
    ...(parameters.length > 0 ? { parameters } : {}),
    responses,
  }));
}

export function openPaths(options: { console: boolean }): Record<string, Json> {
  const installationEndpoint = [name, pathParam('id', 'An installation id of that integration.')];
  const paths: Record<string, Json> = {
    '/': {
      get: open(
        'getRoot',
        'operations',
        'Nothing is served at the root: a 404 that points to the console and to this document',
        {
          404: {
            description:
              "A page (HTML for a browser, plain text otherwise) naming the console's address " +
              "and the API's description; the error body when the request accepts JSON.",
            content: {
              'text/html': { schema: { type: 'string' } },
              'text/plain': { schema: { type: 'string' } },
              'application/json': { schema: ref('Error') },
            },
          },
        },
      ),
    },
    '/health': {
      get: open('getHealth', 'operations', 'Liveness: the process answers', {
        200: json('Alive.', {
          type: 'object',
          additionalProperties: false,
          required: ['status'],
          properties: { status: { const: 'ok' } },
        }),
      }),
    },
    '/ready': {
      get: open(
        'getReadiness',
        'operations',
        'Readiness: the store answers, every sandbox worker is up, the host is not shutting down',
        {
          200: json('Ready.', ref('Readiness')),
          503: json('Not ready; the failing check says why.', ref('Readiness')),
          ...errors(500),
        },
      ),
    },
    '/openapi.json': {
      get: open('getOpenApiDocument', 'operations', 'This description of the HTTP API (OpenAPI 3.1)', {
        200: json('The document.', {
          type: 'object',
          required: ['openapi', 'info', 'paths'],
          properties: { openapi: { type: 'string', pattern: '^3\\.1\\.' } },
        }),
        304: { description: 'Not modified (the request named the current `ETag` in `If-None-Match`).' },
      }),
    },
    '/v1/integrations/{name}/installations/{id}': publicEndpoint(
      'installation',
      'installationEndpoint',
      installationEndpoint,
    ),
    '/v1/integrations/{name}/installations/{id}/{rest}': publicEndpoint('installation', 'installationEndpointPath', [
      ...installationEndpoint,
      rest,
    ]),
    '/v1/integrations/{name}/integration': publicEndpoint('integration', 'integrationEndpoint', [name]),
    '/v1/integrations/{name}/integration/{rest}': publicEndpoint('integration', 'integrationEndpointPath', [
      name,
      rest,
    ]),
    '/v1/integrations/{name}/assets/{path}': {
      get: open(
        'getIntegrationAsset',
        'public endpoints',
        "A file of the integration's `assets/` folder",
        {
          200: {
            description: 'The file, its type from its extension, sandboxed by `Content-Security-Policy`.',
            content: { '*/*': { schema: {} } },
          },
          ...errors(404, 500),
        },
        { parameters: [name, pathParam('path', 'The file under `assets/`: one or more segments.')] },
      ),
    },
    '/v1/site-scripts/{site}': {
      get: open(
        'listSiteScripts',
        'site scripts',
        "A site's published scripts",
        { 200: json('The scripts.', ref('SiteScripts')), ...errors(500, 503) },
        { parameters: [pathParam('site', 'A site id.')] },
      ),
    },
    '/v1/site-scripts/{site}/{installation}': {
      get: open(
        'getSiteScript',
        'site scripts',
        "One site installation's script (its `fetch_published_script` answer)",
        {
          200: { description: 'The script.', content: { 'application/javascript': { schema: { type: 'string' } } } },
          ...errors(404, 500, ...SANDBOX_ERRORS),
        },
        { parameters: [pathParam('site', 'A site id.'), pathParam('installation', 'A site installation id.')] },
      ),
    },
    '/v1/spaces/{rest}': platformApi('platformSpaces', 'Spaces: content, metadata, Git sync', [rest]),
    '/v1/sites/{rest}': platformApi('platformSites', 'Sites: metadata, views, adaptive content, OpenAPI documents', [
      rest,
    ]),
    '/v1/orgs/{rest}': platformApi('platformOrgs', "GitBook's organization routes", [rest]),
    '/v1/urls/{rest}': platformApi('platformUrls', "GitBook's URL resolution", [rest]),
    '/v1/conversations': platformApi('platformConversations', 'Conversations ingestion', []),
    '/v1/installation': platformApi(
      'platformInstallation',
      "The prefix of the calling installation's routes; no route " +
        'answers at the prefix itself (404, with a token or without)',
      [],
      'none',
    ),
    '/v1/installation/{rest}': platformApi(
      'platformInstallationRoutes',
      "The calling installation's configuration and OAuth state",
      [rest],
    ),
    '/v1/integrations/{name}/spaces': platformApi(
      'platformIntegrationSpaces',
      "GitBook's spaces of an integration's installations",
      [name],
    ),
    '/v1/integrations/{name}/sites': platformApi(
      'platformIntegrationSites',
      "GitBook's sites of an integration's installations",
      [name],
    ),
  };
  if (options.console) {
    const redirect = (id: string): Json => ({
      get: open(id, 'operations', "Redirects to the console's own listener", {
        302: { description: 'To the console.' },
      }),
    });
    paths['/console'] = redirect('consoleRedirect');
    paths['/console/{rest}'] = { get: { ...(redirect('consoleRedirectDeep').get as Json), parameters: [rest] } };
  }
  return paths;
}

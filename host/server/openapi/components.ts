// The shared parts of the OpenAPI description of the host's HTTP API: schemas of the answers several
// routes give, the error body per status, security schemes and the builders the path files use.
// Data only; it must never describe a field the host does not send (the OpenAPI test checks real answers).

import { httpErrorCodesOf } from '../../common/errors.ts';

export type Json = Record<string, unknown>;

export const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });

/** A response with a JSON body. */
export function json(description: string, schema: Json): Json {
  return { description, content: { 'application/json': { schema } } };
}

/** The shared error response of `status` (components.responses). */
export const error = (status: number): Json => ({ $ref: `#/components/responses/Error${status}` });

/** Error responses by status, for an operation's `responses`. */
export function errors(...statuses: number[]): Record<string, Json> {
  return Object.fromEntries(statuses.map((status) => [String(status), error(status)]));
}

export const pathParam = (name: string, description: string, schema: Json = { type: 'string' }): Json => ({
  name,
  in: 'path',
  required: true,
  description,
  schema,
});
export const queryParam = (name: string, description: string, schema: Json = { type: 'string' }): Json => ({
  name,
  in: 'query',
  required: false,
  description,
  schema,
});
export const limitParam = (max: number, fallback: number): Json =>
  queryParam('limit', `Page size, 1–${max}.`, { type: 'integer', minimum: 1, maximum: max, default: fallback });
export const cursorParam = queryParam('cursor', "The previous page's `nextCursor`.");

/** A JSON request body (`application/json` or any `+json` type; else 415, invalid JSON 400, over 1 MB 413). */
export function jsonBody(schema: Json, description?: string): Json {
  return { required: true, ...(description ? { description } : {}), content: { 'application/json': { schema } } };
}

const ERROR_STATUSES: Record<number, string> = {
  400: 'The request is malformed or a field has the wrong shape (`details` names each field).',
  401: 'No credentials, or not of the form `Bearer <token>` (with `WWW-Authenticate: Bearer`).',
  403: 'Wrong credentials, or the action is not allowed.',
  404: 'The named integration, installation or resource does not exist.',
  405: 'The method cannot be carried by a fetch Request.',
  408: 'The request did not arrive in time.',
  409: 'The host cannot do this in its present state.',
  413: 'The body is over the limit.',
  415: 'The body is not of the required media type.',
  422: 'The request is well-formed but its content is not valid.',
  500: 'An unexpected failure; the message carries only the request id.',
  502: "The integration's answer was not usable, or its sandbox crashed.",
  503: 'The store, the sandbox or the integration is unavailable for now.',
  504: 'The integration did not answer within its deadline.',
};

/** One host error response per status, its `code` limited to that status's codes (host/common/errors.ts). */
function errorResponses(): Record<string, Json> {
  return Object.fromEntries(
    Object.entries(ERROR_STATUSES).map(([status, description]) => {
      const codes = httpErrorCodesOf(Number(status));
      return [
        `Error${status}`,
        json(`${description} Codes: ${codes.join(', ')}.`, {
          allOf: [
            ref('Error'),
            { type: 'object', properties: { error: { type: 'object', properties: { code: { enum: codes } } } } },
          ],
        }),
      ];
    }),
  );
}

const string = { type: 'string' };
const dateTime = { type: 'string', format: 'date-time' };
const strings = { type: 'array', items: string };
const nullable = (schema: Json): Json => ({ oneOf: [schema, { type: 'null' }] });
/** An object with exactly these properties, `required` of them always present. */
function record(required: string[], properties: Record<string, Json>): Json {
  return { type: 'object', additionalProperties: false, required, properties };
}
const page = (item: string): Json =>
  record(['items', 'nextCursor'], { items: { type: 'array', items: ref(item) }, nextCursor: nullable(string) });

const integrationSummary: Record<string, Json> = {
  name: string,
  title: string,
  description: string,
  visibility: { enum: ['private', 'unlisted', 'public'] },
  scopes: strings,
  blocks: {
    type: 'array',
    items: { type: 'object', required: ['id', 'title'], properties: { id: string, title: string } },
  },
  categories: strings,
  status: { enum: ['ready', 'invalid'] },
  errors: { ...strings, description: '`file: /pointer: message` lines' },
  warnings: strings,
  reloadErrors: {
    ...strings,
    description: 'Under `npm run dev`: the newest files failed to load; `status` is that of the build still serving.',
  },
  published: {
    type: 'object',
    additionalProperties: false,
    required: ['version', 'contentHash', 'publishedBy', 'publishedAt'],
    description: 'Served from the store (docs/operations.md#publishing): the version this host serves.',
    properties: {
      version: { type: 'integer', minimum: 1 },
      contentHash: string,
      publishedBy: string,
      publishedAt: string,
    },
  },
};

const storedSecret: Record<string, Json> = {
  name: string,
  setAt: dateTime,
  setBy: { enum: ['api', 'console', 'cli'] },
  keyId: { type: 'integer' },
  readable: { type: 'boolean' },
  problem: string,
  usedBy: strings,
};

const schemas: Record<string, Json> = {
  Error: record(['error'], {
    error: record(['code', 'message'], {
      code: { type: 'string', pattern: '^ERR_[A-Z_]+$' },
      message: string,
      details: { type: 'array', minItems: 1, items: record(['message'], { pointer: string, message: string }) },
    }),
  }),
  IntegrationSummary: record(['name', 'status'], integrationSummary),
  Integration: record(['name', 'status'], {
    ...integrationSummary,
    installLink: { ...string, description: 'Unlisted integrations: what their installers must send.' },
    organization: string,
    summary: string,
    externalLinks: { type: 'array', items: record(['label', 'url'], { label: string, url: string }) },
    configurations: {
      type: 'object',
      description: "The manifest's configuration schemas by level (account, space, site).",
    },
  }),
  Installation: record(
    ['id', 'integration', 'organization', 'target', 'status', 'configuration', 'createdAt', 'urls'],
    {
      id: string,
      integration: string,
      organization: string,
      target: { enum: ['organization', 'space', 'site'] },
      space: string,
      site: string,
      parent: { ...string, description: 'Space and site installations: the organization installation they belong to.' },
      status: { enum: ['pending', 'active', 'paused'] },
      configuration: { type: 'object', description: 'Button properties are shown as "[redacted]".' },
      externalIds: strings,
      space_selection: { oneOf: [{ const: 'all' }, strings] },
      createdAt: dateTime,
      updatedAt: dateTime,
      urls: record(['publicEndpoint', 'buttons'], {
        publicEndpoint: { type: 'string', format: 'uri' },
        buttons: { type: 'object', additionalProperties: { type: 'string', format: 'uri' } },
      }),
      signingSecret: { ...string, description: 'Only in the answer that creates a `host:webhook` installation.' },
    },
  ),
  InstallationPage: page('Installation'),
  EventLogEntry: record(
    ['eventId', 'integration', 'installationId', 'type', 'status', 'durationMs', 'logs', 'createdAt'],
    {
      eventId: string,
      integration: string,
      installationId: string,
      type: string,
      status: { type: 'integer', description: "The integration's answer status, or the host's for a failed dispatch." },
      errorCode: string,
      durationMs: { type: 'number', minimum: 0 },
      logs: { type: 'array', items: record(['level', 'text'], { level: string, text: string }) },
      createdAt: dateTime,
      requestId: { ...string, description: 'The `x-request-id` of the request that caused the dispatch.' },
      version: { type: 'integer', minimum: 1, description: 'The published version that served it (none: a folder).' },
    },
  ),
  EventLogPage: page('EventLogEntry'),
  Task: record(['id', 'eventId', 'status', 'attempts', 'runAt', 'createdAt', 'updatedAt'], {
    id: string,
    eventId: string,
    status: { enum: ['pending', 'running', 'succeeded', 'failed'] },
    attempts: { type: 'integer', minimum: 0 },
    runAt: dateTime,
    lastStatus: { type: 'integer' },
    lastError: string,
    createdAt: dateTime,
    updatedAt: dateTime,
  }),
  TaskPage: page('Task'),
  OwedEvent: record(['eventId', 'type', 'status', 'attempts', 'createdAt', 'updatedAt'], {
    eventId: string,
    type: string,
    status: { enum: ['pending', 'running', 'delivered', 'failed'] },
    attempts: { type: 'integer', minimum: 0 },
    nextAttemptAt: dateTime,
    leaseUntil: dateTime,
    lastStatus: { type: 'integer' },
    lastError: string,
    createdAt: dateTime,
    updatedAt: dateTime,
  }),
  Delivery: record(
    [
      'id',
      'installationId',
      'eventId',
      'eventType',
      'url',
      'status',
      'attemptCount',
      'nextAttemptAt',
      'createdAt',
      'redeliveryOf',
      'payload',
      'attempts',
    ],
    {
      id: string,
      installationId: string,
      eventId: string,
      eventType: string,
      url: string,
      status: { enum: ['pending', 'in_flight', 'succeeded', 'failed'] },
      attemptCount: { type: 'integer', minimum: 0 },
      nextAttemptAt: nullable(dateTime),
      createdAt: dateTime,
      redeliveryOf: nullable(string),
      payload: { description: 'The JSON body that is (re)sent.' },
      attempts: {
        type: 'array',
        items: record(['attempt', 'startedAt', 'durationMs', 'statusCode', 'error', 'nextAttemptAt'], {
          attempt: { type: 'integer', minimum: 1 },
          startedAt: dateTime,
          durationMs: { type: 'number', minimum: 0 },
          statusCode: nullable({ type: 'integer' }),
          error: nullable(record(['kind', 'message'], { kind: string, message: string })),
          nextAttemptAt: nullable(dateTime),
        }),
      },
    },
  ),
  DeliveryPage: page('Delivery'),
  StoredSecret: record(['name', 'setAt', 'setBy', 'keyId', 'readable', 'usedBy'], storedSecret),
  StoredSecretAnswer: record(['name', 'setAt', 'setBy', 'keyId', 'readable', 'usedBy', 'integrationStatus'], {
    ...storedSecret,
    integrationStatus: { enum: ['ready', 'invalid'] },
  }),
  IntegrationSecrets: record(['integration', 'status', 'key', 'items', 'manifest'], {
    integration: string,
    status: { enum: ['ready', 'invalid'] },
    key: record(['configured'], { configured: { type: 'boolean' }, current: { type: 'integer' } }),
    items: { type: 'array', items: ref('StoredSecret') },
    manifest: {
      type: 'array',
      items: record(['secret', 'source'], {
        secret: string,
        variable: string,
        source: { enum: ['store', 'environment', 'manifest', 'missing'] },
        command: string,
      }),
    },
  }),
  PublishResult: record(['eventId', 'dispatched'], {
    eventId: string,
    dispatched: {
      type: 'array',
      items: {
        oneOf: [
          record(['installationId', 'integration', 'status'], {
            installationId: string,
            integration: string,
            status: { type: 'integer' },
          }),
          record(['installationId', 'integration', 'deliveryId', 'queued'], {
            installationId: string,
            integration: { const: 'host:webhook' },
            deliveryId: string,
            queued: { const: true },
          }),
        ],
      },
    },
  }),
  SiteScripts: record(['siteId', 'items'], {
    siteId: string,
    items: {
      type: 'array',
      items: record(['installationId', 'integration', 'url'], {
        installationId: string,
        integration: string,
        url: { type: 'string', format: 'uri' },
        contentSecurityPolicy: { oneOf: [string, { type: 'object', additionalProperties: string }] },
      }),
    },
  }),
  Readiness: record(['status', 'checks'], {
    status: { enum: ['ready', 'not ready'] },
    checks: record(['store', 'workers', 'host'], { store: string, workers: string, host: string }),
  }),
};

export function components(): Json {
  return {
    schemas,
    responses: errorResponses(),
    securitySchemes: {
      publisherToken: {
        type: 'http',
        scheme: 'bearer',
        description:
          "A publisher token (`ihp_…`, docs/operations.md#publishing): acts for its organization's integrations.",
      },
      adminToken: {
        type: 'http',
        scheme: 'bearer',
        description: 'The admin token (`HOST_ADMIN_TOKEN`): 401 without it, 403 with a wrong one.',
      },
      apiToken: {
        type: 'http',
        scheme: 'bearer',
        description:
          "An installation's or integration's API token " +
          '(`environment.apiTokens.installation` or `.integration`, `iht_…` / ' +
          '`ihi_…`).',
      },
    },
  };
}

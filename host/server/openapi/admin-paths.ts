// The OpenAPI paths of the admin routes (bearer admin token; docs/http-api.md#routes). Data only;
// request bodies are the routes' own schemas, so the description can never drift from what is validated.

import { CREATE_INSTALLATION_SCHEMA } from '../routes/installations.ts';
import { RENDER_REQUEST_SCHEMA } from '../routes/render.ts';
import {
  cursorParam,
  errors,
  json,
  jsonBody,
  limitParam,
  pathParam,
  queryParam,
  ref,
  type Json,
} from './components.ts';

/** The route's schema as a plain JSON Schema: `failureMessage` is an annotation only the host's validator reads. */
function published(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(published);
  if (typeof schema !== 'object' || schema === null) return schema;
  return Object.fromEntries(
    Object.entries(schema)
      .filter(([key]) => key !== 'failureMessage')
      .map(([key, value]) => [key, published(value)]),
  );
}

interface Operation {
  id: string;
  tag: string;
  summary: string;
  description?: string;
  parameters?: Json[];
  body?: Json;
  responses: Record<string, Json>;
}

/** An admin operation: the admin token, and the failures every admin route can answer. */
function admin(operation: Operation): Json {
  return {
    operationId: operation.id,
    tags: [operation.tag],
    summary: operation.summary,
    ...(operation.description ? { description: operation.description } : {}),
    security: [{ adminToken: [] }],
    ...(operation.parameters ? { parameters: operation.parameters } : {}),
    ...(operation.body ? { requestBody: operation.body } : {}),
    responses: { ...operation.responses, ...errors(401, 403, 500, 503) },
  };
}

const name = pathParam('name', "An integration's manifest name, or `host:webhook` for the built-in webhook.");
const installation = pathParam('id', 'An installation id.');
/** What every route reading a JSON body may refuse. */
const BODY_ERRORS = [400, 413, 415];
/** What every route that runs the integration may answer when its sandbox fails. */
const SANDBOX_ERRORS = [502, 504];
const noContent = (description: string): Json => ({ description });

export function adminPaths(): Record<string, Json> {
  return {
    '/metrics': {
      get: admin({
        id: 'getMetrics',
        tag: 'operations',
        summary: "The host's metrics in the Prometheus text format",
        responses: {
          200: {
            description: 'Prometheus text exposition.',
            content: { 'text/plain': { schema: { type: 'string' } } },
          },
        },
      }),
    },
    '/v1/integrations': {
      get: admin({
        id: 'listIntegrations',
        tag: 'integrations',
        summary: 'Every loaded integration, valid or not',
        responses: {
          200: json('The integrations.', {
            type: 'object',
            additionalProperties: false,
            required: ['items'],
            properties: { items: { type: 'array', items: ref('IntegrationSummary') } },
          }),
        },
      }),
    },
    '/v1/integrations/{name}': {
      get: admin({
        id: 'getIntegration',
        tag: 'integrations',
        summary: 'One integration',
        parameters: [name],
        responses: { 200: json('The integration.', ref('Integration')), ...errors(404) },
      }),
    },
    '/v1/integrations/{name}/secrets': {
      get: admin({
        id: 'listSecrets',
        tag: 'secrets',
        summary: "The integration's stored secrets (names, never values) and where each manifest secret comes from",
        parameters: [name],
        responses: { 200: json('The secrets.', ref('IntegrationSecrets')), ...errors(404) },
      }),
    },
    '/v1/integrations/{name}/secrets/{secret}': {
      put: admin({
        id: 'setSecret',
        tag: 'secrets',
        summary: 'Stores or replaces a secret; answers once the integration serves with it',
        parameters: [name, pathParam('secret', 'The variable the manifest names in `${{ env.NAME }}`.')],
        body: jsonBody(
          {
            type: 'object',
            additionalProperties: false,
            required: ['value'],
            properties: { value: { type: 'string', minLength: 1 } },
          },
          'At most 385 KiB; the value at most 64 KiB.',
        ),
        responses: {
          200: json('Replaced.', ref('StoredSecretAnswer')),
          201: json('Stored.', ref('StoredSecretAnswer')),
          ...errors(...BODY_ERRORS, 404, 409),
        },
      }),
      delete: admin({
        id: 'unsetSecret',
        tag: 'secrets',
        summary: 'Removes a stored secret; answers once the integration serves without it',
        parameters: [name, pathParam('secret', 'The variable name.')],
        responses: { 204: noContent('Removed.'), ...errors(404) },
      }),
    },
    '/v1/integrations/{name}/installations': {
      post: admin({
        id: 'createInstallation',
        tag: 'installations',
        summary: 'Installs the integration',
        description:
          'A space or site installation goes under its organization installation, made if needed. With a host ' +
          'API token instead of the admin token, this path is the platform API (docs/platform-api.md).',
        parameters: [name],
        body: jsonBody(published(CREATE_INSTALLATION_SCHEMA) as Json),
        responses: { 201: json('The installation.', ref('Installation')), ...errors(...BODY_ERRORS, 404, 409) },
      }),
    },
    '/v1/installations': {
      get: admin({
        id: 'listInstallations',
        tag: 'installations',
        summary: 'Every installation, oldest first',
        description: 'A parameter given twice, empty or unknown is 400.',
        parameters: [
          queryParam('integration', "Only this integration's installations."),
          queryParam('organization', "Only this organization's, by id or subdomain."),
          queryParam('target', 'Only installations on this target.', { enum: ['organization', 'space', 'site'] }),
          limitParam(200, 50),
          cursorParam,
        ],
        responses: { 200: json('One page.', ref('InstallationPage')), ...errors(400) },
      }),
    },
    '/v1/installations/{id}': {
      get: admin({
        id: 'getInstallation',
        tag: 'installations',
        summary: 'One installation',
        parameters: [installation],
        responses: { 200: json('The installation.', ref('Installation')), ...errors(404) },
      }),
      delete: admin({
        id: 'deleteInstallation',
        tag: 'installations',
        summary:
          'Uninstalls; its token is revoked (with the space and site installations under an organization installation)',
        parameters: [installation],
        responses: { 204: noContent('Uninstalled.'), ...errors(404) },
      }),
    },
    '/v1/installations/{id}/configuration': {
      patch: admin({
        id: 'updateConfiguration',
        tag: 'installations',
        summary: 'Sets configuration properties (`null` unsets one)',
        parameters: [installation],
        body: jsonBody({ type: 'object', description: 'Properties to set; `null` unsets.' }),
        responses: {
          200: json('The installation.', ref('Installation')),
          ...errors(...BODY_ERRORS, 404, 422, ...SANDBOX_ERRORS),
        },
      }),
    },
    '/v1/installations/{id}/completions/{property}': {
      get: admin({
        id: 'completeProperty',
        tag: 'installations',
        summary: "The options of a string property's `completion_url`",
        parameters: [installation, pathParam('property', 'A string configuration property with a `completion_url`.')],
        responses: {
          200: json('The options.', {
            type: 'object',
            additionalProperties: false,
            required: ['items'],
            properties: {
              items: {
                type: 'array',
                items: {
                  type: 'object',
                  additionalProperties: false,
                  required: ['label', 'value'],
                  properties: { label: { type: 'string' }, value: { type: 'string' } },
                },
              },
            },
          }),
          ...errors(404, ...SANDBOX_ERRORS),
        },
      }),
    },
    '/v1/integrations/{name}/events': {
      get: admin({
        id: 'listEvents',
        tag: 'events',
        summary: "The integration's event log, newest first",
        parameters: [name, limitParam(200, 50), cursorParam],
        responses: { 200: json('One page.', ref('EventLogPage')), ...errors(400, 404) },
      }),
    },
    '/v1/integrations/{name}/events/stream': {
      get: admin({
        id: 'followEvents',
        tag: 'events',
        summary: 'New event-log entries as they are written, as server-sent events',
        description:
          'Each message is `event: dispatch` with an EventLogEntry as ' +
          'its data; a `: keep-alive` comment comes every 15 s.',
        parameters: [name, queryParam('installation', "Only this installation's entries.")],
        responses: {
          200: { description: 'The stream.', content: { 'text/event-stream': { schema: { type: 'string' } } } },
          ...errors(400, 404),
        },
      }),
    },
    '/v1/integrations/{name}/events/{eventId}': {
      get: admin({
        id: 'getEvent',
        tag: 'events',
        summary: 'One event-log entry',
        parameters: [name, pathParam('eventId', 'An event id.')],
        responses: { 200: json('The entry.', ref('EventLogEntry')), ...errors(404) },
      }),
    },
    '/v1/integrations/{name}/tasks': {
      get: admin({
        id: 'listTasks',
        tag: 'events',
        summary: "The integration's queued tasks, newest first (never their payloads)",
        description:
          'With a host API token instead of the admin token, this path is the platform API (docs/platform-api.md).',
        parameters: [name, limitParam(200, 50), cursorParam],
        responses: { 200: json('One page.', ref('TaskPage')), ...errors(400, 404) },
      }),
    },
    '/v1/installations/{id}/owed-events': {
      get: admin({
        id: 'listOwedEvents',
        tag: 'events',
        summary: 'The setup events the host owes the installation, newest first',
        parameters: [installation, limitParam(200, 50)],
        responses: {
          200: json('The owed events.', {
            type: 'object',
            additionalProperties: false,
            required: ['items'],
            properties: { items: { type: 'array', items: ref('OwedEvent') } },
          }),
          ...errors(400, 404),
        },
      }),
    },
    '/v1/installations/{id}/render': {
      post: admin({
        id: 'render',
        tag: 'installations',
        summary: 'Renders or acts on a UI component',
        description: "A 4xx may also be the integration's own `ExposableError`: its status and JSON body, passed on.",
        parameters: [installation],
        body: jsonBody(published(RENDER_REQUEST_SCHEMA) as Json),
        responses: {
          200: json('A rendered element, or the completion of an action.', {
            oneOf: [
              {
                type: 'object',
                required: ['type', 'element', 'props', 'state'],
                properties: {
                  type: { const: 'element' },
                  element: { type: 'object' },
                  props: { type: 'object' },
                  state: { type: 'object' },
                },
              },
              { type: 'object', required: ['type'], properties: { type: { const: 'complete' }, returnValue: {} } },
            ],
          }),
          ...Object.fromEntries(
            [400, 404, 422].map((status) => [
              String(status),
              json(`The host's error (components.responses.Error${status}), or the integration's ExposableError.`, {
                anyOf: [ref('Error'), {}],
              }),
            ]),
          ),
          '4XX': json("The integration's ExposableError: any JSON it chose.", {}),
          ...errors(413, 415, ...SANDBOX_ERRORS),
        },
      }),
    },
    '/v1/events': {
      post: admin({
        id: 'publishEvent',
        tag: 'events',
        summary: 'Publishes a platform event to every installation that can receive it',
        body: jsonBody({
          type: 'object',
          required: ['type'],
          properties: { type: { type: 'string' } },
          description: 'A platform event (docs/events.md).',
        }),
        responses: { 202: json('Published.', ref('PublishResult')), ...errors(...BODY_ERRORS) },
      }),
    },
    '/v1/installations/{id}/deliveries': {
      get: admin({
        id: 'listDeliveries',
        tag: 'webhooks',
        summary: "A webhook installation's delivery log, newest first, every attempt",
        parameters: [installation, limitParam(100, 20), cursorParam],
        responses: { 200: json('One page.', ref('DeliveryPage')), ...errors(400, 404) },
      }),
    },
    '/v1/deliveries/{id}/redeliver': {
      post: admin({
        id: 'redeliver',
        tag: 'webhooks',
        summary: 'Queues the same event again, to the installation’s current URL',
        parameters: [pathParam('id', 'A delivery id.')],
        responses: { 202: json('The new delivery.', ref('Delivery')), ...errors(404) },
      }),
    },
    '/v1/installations/{id}/signing-secret': {
      post: admin({
        id: 'rotateSigningSecret',
        tag: 'webhooks',
        summary: "Rotates a webhook installation's signing secret",
        parameters: [installation],
        responses: {
          200: json('The new secret.', {
            type: 'object',
            additionalProperties: false,
            required: ['signingSecret'],
            properties: { signingSecret: { type: 'string' } },
          }),
          ...errors(404),
        },
      }),
    },
    '/{version}': {
      post: admin({
        id: 'postEnvelope',
        tag: 'installations',
        summary: 'The envelope: one event for one installation, as multipart/form-data',
        description:
          'Parts `event` (required), `environment` (parsed, then ignored) and ' +
          "`fetch-body`. The answer is the integration's response, as on a public " +
          'endpoint.',
        parameters: [
          pathParam(
            'version',
            'The envelope version; only `v1` is supported (any other is 400 ERR_UNSUPPORTED_VERSION).',
            { type: 'string', pattern: '^v[0-9]+$', examples: ['v1'] },
          ),
        ],
        body: {
          required: true,
          content: {
            'multipart/form-data': {
              schema: {
                type: 'object',
                required: ['event'],
                properties: {
                  event: { type: 'string', description: 'A JSON object with `type` and `installationId`.' },
                  environment: { type: 'string' },
                  'fetch-body': { type: 'string', contentMediaType: 'application/octet-stream' },
                },
              },
            },
          },
        },
        responses: {
          default: { description: "The integration's response, passed on." },
          ...errors(...BODY_ERRORS, 404, ...SANDBOX_ERRORS),
        },
      }),
    },
  };
}

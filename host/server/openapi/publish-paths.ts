// The OpenAPI paths and schemas of publishing (docs/http-api.md#publishing): versions, which a
// publisher token or the admin token may call, and publisher tokens, which only the admin may.
// Data only.

import { errors, json, jsonBody, pathParam, ref, type Json } from './components.ts';

const string = { type: 'string' };
const dateTime = { type: 'string', format: 'date-time' };
const record = (required: string[], properties: Record<string, Json>): Json => ({
  type: 'object',
  additionalProperties: false,
  required,
  properties,
});

const summary: Record<string, Json> = {
  integration: string,
  version: { type: 'integer', minimum: 1 },
  organization: string,
  contentHash: { ...string, description: 'sha256 of the uploaded files, in path order.' },
  bundleHash: string,
  files: { type: 'integer', minimum: 1 },
  bytes: { type: 'integer', minimum: 0 },
  publishedBy: { ...string, description: '`admin`, or `publisher:<id>`.' },
  publishedAt: dateTime,
  current: { type: 'boolean' },
};
const publisher: Record<string, Json> = {
  id: string,
  organization: string,
  label: string,
  createdAt: dateTime,
  revokedAt: { oneOf: [dateTime, { type: 'null' }] },
};

export const PUBLISH_SCHEMAS: Record<string, Json> = {
  Version: record(Object.keys(summary), summary),
  PublishedVersion: record([...Object.keys(summary), 'warnings'], {
    ...summary,
    warnings: { type: 'array', items: string },
  }),
  Publisher: record(Object.keys(publisher), publisher),
  IssuedPublisher: record([...Object.keys(publisher), 'token'], {
    ...publisher,
    token: { ...string, description: 'Shown in this answer only; the host keeps its hash.' },
  }),
};

const name = pathParam('name', "A published integration's manifest name.");
const common = (security: Json[], responses: Record<string, Json>) => ({
  security,
  responses: { ...responses, ...errors(401, 403, 500, 503) },
});
const eitherToken = [{ publisherToken: [] }, { adminToken: [] }];
const adminOnly = [{ adminToken: [] }];

export function publishPaths(): Record<string, Json> {
  return {
    '/v1/integrations/{name}/versions': {
      post: {
        operationId: 'publishVersion',
        tags: ['publishing'],
        summary: 'Publishes a version: a gzipped tar of the integration folder, checked as --dir is, then current',
        parameters: [name],
        requestBody: {
          required: true,
          content: { 'application/gzip': { schema: { type: 'string', contentMediaType: 'application/gzip' } } },
        },
        ...common(eitherToken, {
          200: json('The upload equals the current version: nothing new was stored.', ref('PublishedVersion')),
          201: json('Stored, current, and served by this host.', ref('PublishedVersion')),
          ...errors(400, 408, 409, 413, 415, 422),
        }),
      },
      get: {
        operationId: 'listVersions',
        tags: ['publishing'],
        summary: "The integration's versions, newest first",
        parameters: [name],
        ...common(eitherToken, {
          200: json('The versions.', record(['items'], { items: { type: 'array', items: ref('Version') } })),
          ...errors(404),
        }),
      },
    },
    '/v1/integrations/{name}/versions/{version}/current': {
      post: {
        operationId: 'makeVersionCurrent',
        tags: ['publishing'],
        summary: 'Makes a version current (a rollback) once it started in an isolate; answers once this host serves it',
        parameters: [name, pathParam('version', 'A version number.', { type: 'string', examples: ['1'] })],
        ...common(eitherToken, {
          200: json('The version, now current.', ref('Version')),
          ...errors(400, 404, 409, 422),
        }),
      },
    },
    '/v1/publishers': {
      post: {
        operationId: 'issuePublisher',
        tags: ['publishing'],
        summary: 'Issues a publisher token for an organization (shown once)',
        requestBody: jsonBody(
          record(['organization'], { organization: string, label: { type: 'string', maxLength: 200 } }),
        ),
        ...common(adminOnly, { 201: json('Issued.', ref('IssuedPublisher')), ...errors(400, 413, 415) }),
      },
      get: {
        operationId: 'listPublishers',
        tags: ['publishing'],
        summary: 'Every publisher token, revoked ones included, without the tokens',
        ...common(adminOnly, {
          200: json('The publishers.', record(['items'], { items: { type: 'array', items: ref('Publisher') } })),
        }),
      },
    },
    '/v1/publishers/{id}': {
      delete: {
        operationId: 'revokePublisher',
        tags: ['publishing'],
        summary: 'Revokes a publisher token',
        parameters: [pathParam('id', 'A publisher id (`pub_…`).')],
        ...common(adminOnly, { 204: { description: 'Revoked.' }, ...errors(404) }),
      },
    },
  };
}

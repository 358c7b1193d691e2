// The OpenAPI 3.1 description of the API listener's routes (docs/http-api.md is the contract of
// record; test/integration/openapi.test.ts keeps the two true). Assembles data only; it must never
// list a route the router does not register, nor miss one.

import { adminPaths } from './admin-paths.ts';
import { components, type Json } from './components.ts';
import { openPaths } from './open-paths.ts';
import { PUBLISH_SCHEMAS, publishPaths } from './publish-paths.ts';

export interface OpenApiOptions {
  /** package.json's version. */
  version: string;
  /** Whether the console runs, so `GET /console` redirects to it. */
  console: boolean;
}

export function createOpenApiDocument(options: OpenApiOptions): Json {
  return {
    openapi: '3.1.1',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'Integration host HTTP API',
      version: options.version,
      description:
        'The routes of the API listener. Errors from the host itself are `{ error: { code, message, details? ' +
        '} }`; answers an integration writes are passed on unchanged. A known path with another method is 405 ' +
        '`ERR_METHOD_NOT_ALLOWED` with `Allow`, an unknown path 404 `ERR_NOT_FOUND`. Every answer carries ' +
        '`x-request-id`.',
    },
    tags: [
      'operations',
      'integrations',
      'secrets',
      'publishing',
      'installations',
      'events',
      'webhooks',
      'public endpoints',
      'site scripts',
      'platform API',
    ].map((name) => ({ name })),
    paths: { ...openPaths(options), ...adminPaths(), ...publishPaths() },
    components: withSchemas(components(), PUBLISH_SCHEMAS),
  };
}

function withSchemas(base: Json, more: Record<string, Json>): Json {
  return { ...base, schemas: { ...(base.schemas as Record<string, Json>), ...more } };
}

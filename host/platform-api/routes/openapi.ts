// The OpenAPI spec of a site (docs/platform-api.md): read (`openapi:read`) and replace (`openapi:write`,
// body `{ spec }` with the document as an object or as its YAML/JSON text). Stores what was sent;
// it only checks the document declares `openapi` or `swagger`, it never interprets the rest.

import { load, CORE_SCHEMA } from 'js-yaml';
import { HostError } from '../../common/errors.ts';
import { tooDeepMessage, valueTooDeep } from '../../common/json-depth.ts';
import type { ApiRoute } from '../types.ts';
import type { PlatformApiDeps } from '../deps.ts';
import { compileBodyValidator } from '../../common/validate-body.ts';

const site = (params: Record<string, string>) => ({ kind: 'site', id: params.site }) as const;

const validateSpecBody = compileBodyValidator<{ spec: Record<string, unknown> | string }>({
  type: 'object',
  additionalProperties: false,
  required: ['spec'],
  properties: {
    spec: {
      anyOf: [
        { type: 'object', failureMessage: 'must be a JSON object or a string' },
        { type: 'string', failureMessage: 'must be a JSON object or a string' },
      ],
      failureMessage: 'must be a JSON object or a string',
    },
  },
});

function notASpec(reason: string): HostError {
  return new HostError('ERR_VALIDATION', `spec ${reason}`, [{ pointer: '/spec', message: reason }]);
}

/** The document a spec stands for: the object itself, or its text parsed as YAML (JSON is YAML). */
function parseSpec(spec: Record<string, unknown> | string): unknown {
  if (typeof spec !== 'string') return spec;
  let document: unknown;
  try {
    document = load(spec, { schema: CORE_SCHEMA });
  } catch (error) {
    throw notASpec(`is not valid YAML or JSON: ${(error as Error).message.split('\n')[0]}`);
  }
  // YAML nests without brackets; the parsed document is measured instead of the text.
  if (valueTooDeep(document)) throw notASpec(tooDeepMessage());
  return document;
}

function checkSpec(spec: Record<string, unknown> | string): void {
  const document = parseSpec(spec);
  const isObject = typeof document === 'object' && document !== null && !Array.isArray(document);
  const version = isObject
    ? ((document as Record<string, unknown>).openapi ?? (document as Record<string, unknown>).swagger)
    : undefined;
  if (typeof version !== 'string' || version === '')
    throw notASpec('must be an OpenAPI or Swagger document (with an "openapi" or "swagger" field)');
}

export const openApiRoutes: ApiRoute<PlatformApiDeps>[] = [
  {
    method: 'GET',
    pattern: '/v1/sites/:site/openapi',
    scope: 'openapi:read',
    resource: site,
    handle: async ({ params, deps }) => ({ status: 200, body: await deps.platform.getOpenApi(params.site) }),
  },
  {
    method: 'PUT',
    pattern: '/v1/sites/:site/openapi',
    scope: 'openapi:write',
    resource: site,
    async handle({ params, body, deps }) {
      const { spec } = validateSpecBody(body);
      checkSpec(spec);
      return { status: 200, body: await deps.platform.putOpenApi(params.site, spec) };
    },
  },
];

// Admin creation, listing, reading and uninstalling of installations. Validates the request body; the
// visibility rules and everything stateful belong to services, never to this route.

import type Router from '@koa/router';
import type { Middleware } from 'koa';
import type { HostServices } from '../services.ts';
import type { CreateInstallationInput, InstallationTarget } from '../../installations/model.ts';
import {
  DEFAULT_INSTALLATIONS_PAGE,
  MAX_INSTALLATIONS_PAGE,
  type InstallationQuery,
} from '../../installations/listing.ts';
import { HostError } from '../../common/errors.ts';
import { readJsonBody } from '../json-body.ts';
import { compileBodyValidator } from '../../common/validate-body.ts';

// `space` exactly when the target is a space, `site` exactly when it is a site.
function onlyForTarget(field: 'space' | 'site'): Record<string, unknown> {
  return {
    if: { properties: { target: { const: field } }, required: ['target'] },
    then: { required: [field], failureMessage: `is required when target is "${field}"` },
    else: { properties: { [field]: { not: {}, failureMessage: `is only allowed when target is "${field}"` } } },
  };
}

/** The body of `POST /v1/integrations/:name/installations` (also in the OpenAPI description). */
export const CREATE_INSTALLATION_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['organization', 'target'],
  properties: {
    organization: { type: 'string', minLength: 1 },
    target: { type: 'string', enum: ['organization', 'space', 'site'] },
    space: { type: 'string', minLength: 1 },
    site: { type: 'string', minLength: 1 },
    installLink: { type: 'string', minLength: 1 },
    space_selection: {
      oneOf: [
        { const: 'all' },
        { type: 'array', items: { type: 'string', minLength: 1 }, uniqueItems: true, minItems: 1 },
      ],
    },
  },
  allOf: [onlyForTarget('space'), onlyForTarget('site')],
};

const validateCreateInstallation = compileBodyValidator<CreateInstallationInput>(CREATE_INSTALLATION_SCHEMA);

const QUERY_FIELDS = ['integration', 'organization', 'target', 'limit', 'cursor'];
const TARGETS: readonly InstallationTarget[] = ['organization', 'space', 'site'];

function queryProblem(field: string, message: string): HostError {
  return new HostError('ERR_VALIDATION', `${field}: ${message}`, [{ pointer: `/${field}`, message }]);
}

/** The query of `GET /v1/installations`: each field once, known fields only (a typo must not list everything). */
export function readInstallationQuery(query: Record<string, string | string[] | undefined>): InstallationQuery {
  const unknown = Object.keys(query).find((field) => !QUERY_FIELDS.includes(field));
  if (unknown !== undefined)
    throw queryProblem(unknown, `is not a filter of this listing (use ${QUERY_FIELDS.join(', ')})`);
  const single = (field: string): string | undefined => {
    const value = query[field];
    if (value === undefined) return undefined;
    if (Array.isArray(value)) throw queryProblem(field, 'must be given once');
    if (value === '') throw queryProblem(field, 'must not be empty');
    return value;
  };
  const target = single('target');
  if (target !== undefined && !TARGETS.includes(target as InstallationTarget))
    throw queryProblem('target', `must be one of ${TARGETS.join(', ')} (got "${target}")`);
  const limitText = single('limit');
  const limit = limitText === undefined ? DEFAULT_INSTALLATIONS_PAGE : Number(limitText);
  if (limitText !== undefined && (!/^\d+$/.test(limitText) || limit < 1 || limit > MAX_INSTALLATIONS_PAGE)) {
    throw queryProblem('limit', `must be an integer from 1 to ${MAX_INSTALLATIONS_PAGE}`);
  }
  const integration = single('integration');
  const organization = single('organization');
  const cursor = single('cursor');
  return {
    ...(integration !== undefined ? { integration } : {}),
    ...(organization !== undefined ? { organization } : {}),
    ...(target !== undefined ? { target: target as InstallationTarget } : {}),
    limit,
    ...(cursor !== undefined ? { cursor } : {}),
  };
}

export function registerInstallationRoutes(router: Router, services: HostServices, adminAuth: Middleware): void {
  router.post('/v1/integrations/:name/installations', adminAuth, async (ctx) => {
    const input = validateCreateInstallation(await readJsonBody(ctx));
    ctx.status = 201;
    ctx.body = await services.createInstallation(ctx.params.name, input);
  });

  router.get('/v1/installations', adminAuth, async (ctx) => {
    ctx.body = await services.listInstallations(readInstallationQuery(ctx.query));
  });

  router.get('/v1/installations/:id', adminAuth, async (ctx) => {
    ctx.body = await services.getInstallation(ctx.params.id);
  });

  router.delete('/v1/installations/:id', adminAuth, async (ctx) => {
    await services.deleteInstallation(ctx.params.id);
    ctx.status = 204;
  });
}

// Admin creation, reading and uninstalling of installations. Validates the request body; the
// visibility rules and everything stateful belong to services, never to this route.

import type Router from '@koa/router';
import type { Middleware } from 'koa';
import type { HostServices } from '../services.ts';
import type { CreateInstallationInput } from '../../installations/model.ts';
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

const validateCreateInstallation = compileBodyValidator<CreateInstallationInput>({
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
});

export function registerInstallationRoutes(router: Router, services: HostServices, adminAuth: Middleware): void {
  router.post('/v1/integrations/:name/installations', adminAuth, async (ctx) => {
    const input = validateCreateInstallation(await readJsonBody(ctx));
    ctx.status = 201;
    ctx.body = await services.createInstallation(ctx.params.name, input);
  });

  router.get('/v1/installations/:id', adminAuth, async (ctx) => {
    ctx.body = await services.getInstallation(ctx.params.id);
  });

  router.delete('/v1/installations/:id', adminAuth, async (ctx) => {
    await services.deleteInstallation(ctx.params.id);
    ctx.status = 204;
  });
}

// Admin configuration of an installation: `PATCH /v1/installations/:id/configuration` (docs/installations.md) and
// the completions of a string property. Only reads the request; the merge, validation, status and
// installation_setup belong to services (platform/lifecycle.ts), never to this route.

import type Router from '@koa/router';
import type { Middleware } from 'koa';
import type { HostServices } from '../services.ts';
import { readJsonObject } from '../json-body.ts';

export function registerConfigurationRoutes(router: Router, services: HostServices, adminAuth: Middleware): void {
  router.patch('/v1/installations/:id/configuration', adminAuth, async (ctx) => {
    const patch = await readJsonObject(ctx);
    ctx.body = await services.updateConfiguration(ctx.params.id, patch);
  });

  router.get('/v1/installations/:id/completions/:property', adminAuth, async (ctx) => {
    ctx.body = await services.completeProperty(ctx.params.id, ctx.params.property);
  });
}

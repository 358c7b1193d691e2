// Admin routes of publisher tokens (docs/http-api.md#publishing): issue one for an organization
// (the token is in this answer only), list them without tokens, revoke one. Operators only.

import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { readJsonObject } from '../json-body.ts';
import type { HostServices } from '../services.ts';

export function registerPublisherRoutes(router: Router, services: HostServices, adminAuth: Middleware): void {
  router.post('/v1/publishers', adminAuth, async (ctx) => {
    const body = await readJsonObject(ctx, 16 * 1024, { expected: '{"organization": "…", "label": "…"}' });
    const { publisher, token } = await services.publishing.issuePublisher(body);
    ctx.status = 201;
    ctx.body = { ...publisher, token };
  });

  router.get('/v1/publishers', adminAuth, async (ctx) => {
    ctx.body = { items: await services.publishing.listPublishers() };
  });

  router.delete('/v1/publishers/:id', adminAuth, async (ctx) => {
    await services.publishing.revokePublisher(ctx.params.id);
    ctx.status = 204;
  });
}

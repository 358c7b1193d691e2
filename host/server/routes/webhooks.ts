// Admin routes of the built-in webhook integration (docs/http-api.md, docs/webhooks.md): the delivery log of an
// installation, manual redelivery, and signing-secret rotation. Reaches the outbox only through
// HostServices; never shows a signing secret except the one a rotation just created.

import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { HostError } from '../../common/errors.ts';
import type { HostServices } from '../services.ts';

function readLimit(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const limit = Number(value);
  if (typeof value !== 'string' || !Number.isInteger(limit) || limit < 1 || limit > 100) {
    throw new HostError('ERR_VALIDATION', '/limit: must be an integer from 1 to 100', [
      { pointer: '/limit', message: 'must be an integer from 1 to 100' },
    ]);
  }
  return limit;
}

export function registerWebhookRoutes(router: Router, services: HostServices, adminAuth: Middleware): void {
  router.get('/v1/installations/:id/deliveries', adminAuth, async (ctx) => {
    const cursor = typeof ctx.query.cursor === 'string' ? ctx.query.cursor : null;
    ctx.body = await services.listDeliveries(ctx.params.id, { limit: readLimit(ctx.query.limit), cursor });
  });

  router.post('/v1/deliveries/:id/redeliver', adminAuth, async (ctx) => {
    const view = await services.redeliver(ctx.params.id);
    ctx.status = 202;
    ctx.body = view;
  });

  router.post('/v1/installations/:id/signing-secret', adminAuth, async (ctx) => {
    ctx.body = await services.rotateSigningSecret(ctx.params.id);
  });
}

// `POST /v1/events`: an operator (or the platform) publishes a platform event. The shape checks,
// eventId and fan-out belong to services.publishEvent; this route only reads the JSON object.

import type Router from '@koa/router';
import type { Middleware } from 'koa';
import type { HostServices } from '../services.ts';
import { readJsonObject } from '../json-body.ts';

export function registerEventRoutes(router: Router, services: HostServices, adminAuth: Middleware): void {
  router.post('/v1/events', adminAuth, async (ctx) => {
    const event = await readJsonObject(ctx);
    const result = await services.publishEvent(event);
    ctx.status = 202;
    ctx.body = result;
  });
}

// Operations routes: `GET /ready` (anyone) answers 200 only while the store answers, every sandbox
// worker is up and the host is not shutting down, so a load balancer stops sending traffic to a
// host that cannot serve it; `GET /metrics` (admin) is the Prometheus text of services.metrics.

import type Router from '@koa/router';
import type { Middleware } from 'koa';
import type { HostServices } from '../services.ts';

export function registerOperationsRoutes(router: Router, services: HostServices, adminAuth: Middleware): void {
  router.get('/ready', async (ctx) => {
    const readiness = await services.readiness();
    ctx.status = readiness.ready ? 200 : 503;
    ctx.set('cache-control', 'no-store');
    ctx.body = { status: readiness.ready ? 'ready' : 'not ready', checks: readiness.checks };
  });

  router.get('/metrics', adminAuth, async (ctx) => {
    const { contentType, body } = await services.metrics();
    ctx.type = contentType;
    ctx.body = body;
  });
}

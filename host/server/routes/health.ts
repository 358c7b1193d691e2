// `GET /health`: liveness for anyone. Must never touch services, so it answers even when the
// sandbox or the store is in trouble.

import type Router from '@koa/router';

export function registerHealthRoutes(router: Router): void {
  router.get('/health', (ctx) => {
    ctx.body = { status: 'ok' };
  });
}

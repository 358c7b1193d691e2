// `GET /openapi.json`: the OpenAPI description of this API, for anyone. Serializes the document once
// at registration; must never build it per request nor describe anything but what it is given.

import { createHash } from 'node:crypto';
import type Router from '@koa/router';

export function registerOpenApiRoute(router: Router, document: object): void {
  const body = JSON.stringify(document);
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  router.get('/openapi.json', (ctx) => {
    ctx.type = 'application/json';
    // Revalidated each time (a restarted, upgraded host must not be hidden by a cache); the ETag keeps that to a 304.
    ctx.set('cache-control', 'no-cache');
    ctx.set('etag', etag);
    ctx.status = 200;
    if (ctx.fresh) {
      ctx.status = 304;
      return;
    }
    ctx.body = body;
  });
}

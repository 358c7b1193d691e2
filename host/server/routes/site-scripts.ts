// A site's published scripts, open to anyone (the site's pages load them): `GET /v1/site-scripts/:site`
// lists them, `GET /v1/site-scripts/:site/:installation` serves one (docs/http-api.md#site-scripts).
// The answer carries only the host's own headers: a JavaScript type, nosniff and the
// integration's cache policy; never a cookie or any other header of the integration.

import type Router from '@koa/router';
import type { HostServices } from '../services.ts';

export function registerSiteScriptRoutes(router: Router, services: HostServices): void {
  router.get('/v1/site-scripts/:site', async (ctx) => {
    ctx.body = await services.siteScripts.list(ctx.params.site);
  });

  router.get('/v1/site-scripts/:site/:installation', async (ctx) => {
    const { body, cacheControl } = await services.siteScripts.script(ctx.params.site, ctx.params.installation);
    ctx.set('content-type', 'application/javascript; charset=utf-8');
    ctx.set('x-content-type-options', 'nosniff');
    if (cacheControl !== undefined && /^[\t\x20-\x7e]*$/.test(cacheControl)) ctx.set('cache-control', cacheControl);
    ctx.body = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  });
}

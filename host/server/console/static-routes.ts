// The console's page and bundles: every `/console[/...]` path answers the one HTML page (the page's
// router picks the view), `/console/assets/<name>` the bundles built in memory. Serves nothing
// else and never a file named by the request.

import type Router from '@koa/router';
import type { Context } from 'koa';
import { HostError } from '../../common/errors.ts';
import type { ConsoleAsset, ConsoleAssets } from './assets.ts';
import { CONSOLE_PAGE_CSP } from './security-headers.ts';

function send(ctx: Context, asset: ConsoleAsset): void {
  ctx.set('ETag', asset.etag);
  // Revalidated on every load (cheap: an ETag match is a 304), so a restarted host never serves
  // a page against a stale bundle.
  ctx.set('Cache-Control', 'no-cache');
  if (ctx.get('if-none-match') === asset.etag) {
    ctx.status = 304;
    return;
  }
  ctx.type = asset.type;
  ctx.body = asset.body;
}

export function registerStaticRoutes(router: Router, assets: ConsoleAssets): void {
  router.get('/', (ctx) => ctx.redirect('/console'));

  router.get('/console/assets/:name', (ctx) => {
    const asset = assets.files.get(ctx.params.name);
    if (asset === undefined) throw new HostError('ERR_NOT_FOUND', `the console has no asset "${ctx.params.name}"`);
    send(ctx, asset);
  });

  // `/console/session` is the session API (session-routes.ts), registered before this.
  router.get('/console{/*rest}', (ctx) => {
    ctx.set('Content-Security-Policy', CONSOLE_PAGE_CSP);
    send(ctx, assets.page);
  });
}

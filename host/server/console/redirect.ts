// `GET /console` on the API listener: the console has its own listener (its own origin, so no
// integration's public-endpoint page ever shares an origin with it); this only points there.

import type Router from '@koa/router';

export function registerConsoleRedirect(router: Router, consoleUrl: string): void {
  router.get('/console{/*rest}', (ctx) => {
    ctx.redirect(`${consoleUrl}/console`);
  });
}

// The platform API over HTTP (docs/http-api.md, docs/platform-api.md): `/v1/spaces/…`, `/v1/sites/…`,
// `/v1/orgs/…`, `/v1/urls/…`, `/v1/conversations`, `/v1/installation[/…]` and GitBook's
// `/v1/integrations/:name/{tasks,spaces,sites}` pass through to services.platformApi, which authenticates the token
// alone. Under `/v1/integrations/:name/installations…`, which public endpoints and admin routes share with
// GitBook's API, a request carrying a host API token (`Bearer iht_…` / `Bearer ihi_…`) is an API
// call and anything else goes on to those routes. Never authorizes nor alters the answer.

import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type { HostServices } from '../services.ts';
import { readBody } from '../read-body.ts';
import { requestTarget } from '../request-target.ts';
import { looksLikeApiToken } from '../../installations/tokens.ts';
import { parseBearer } from '../../platform-api/router.ts';

const MAX_PLATFORM_API_BODY_BYTES = 1024 * 1024;

/** Lower-case name/value pairs in arrival order (repeated headers stay separate). */
function headerPairs(ctx: Context): [string, string][] {
  const raw = ctx.req.rawHeaders;
  const pairs: [string, string][] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) pairs.push([raw[i].toLowerCase(), raw[i + 1]]);
  return pairs;
}

function passThroughTo(services: HostServices): (ctx: Context) => Promise<void> {
  return async (ctx: Context): Promise<void> => {
    const body = await readBody(ctx.req, MAX_PLATFORM_API_BODY_BYTES);
    // No `from`: an HTTP caller is whoever its installation token says it is.
    const response = await services.platformApi.handle({
      method: ctx.method,
      path: requestTarget(ctx),
      headers: headerPairs(ctx),
      body: body.length > 0 ? new Uint8Array(body) : null,
    });
    ctx.status = response.status;
    for (const [name, value] of response.headers) ctx.append(name, value);
    ctx.body = Buffer.from(response.body.buffer, response.body.byteOffset, response.body.byteLength);
  };
}

export function registerPlatformApiRoutes(router: Router, services: HostServices): void {
  const passThrough = passThroughTo(services);
  for (const path of [
    '/v1/spaces/*rest',
    '/v1/sites/*rest',
    '/v1/orgs/*rest',
    '/v1/urls/*rest',
    '/v1/conversations',
    '/v1/installation',
    '/v1/installation/*rest',
  ]) {
    router.all(path, passThrough);
  }
  for (const path of ['/v1/integrations/:name/spaces', '/v1/integrations/:name/sites']) router.all(path, passThrough);
}

/**
 * Paths the API shares with public endpoints (`…/installations/:id[/…]`) and admin routes (`…/installations`,
 * `…/tasks`).
 */
const SHARED_PATHS = /^\/v1\/integrations\/[^/]+\/(installations(\/.*)?|tasks)$/;

/** Whether a request to `path` with this Authorization header is a platform API call (not a public or admin one). */
export function isApiCall(path: string, authorization: string | undefined): boolean {
  if (!SHARED_PATHS.test(path)) return false;
  const token = parseBearer(authorization ?? '');
  return token !== undefined && looksLikeApiToken(token);
}

/**
 * A middleware ahead of the router: on the shared paths, a request bearing a host API token is an
 * API call; any other request goes on to the router (public endpoints, admin routes, 404/405) as if
 * this did not exist.
 */
export function createApiTokenRouting(services: HostServices): Middleware {
  const passThrough = passThroughTo(services);
  return async (ctx, next) => {
    return isApiCall(ctx.path, ctx.get('authorization')) ? passThrough(ctx) : next();
  };
}

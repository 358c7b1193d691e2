// Routes of published versions (docs/http-api.md#publishing): upload a version, list them, make
// one current. A publisher token acts for its own organization only; the admin token (or a console
// session) for every one. The upload is read as a stream; nothing is stored unless all of it passes.

import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { HostError } from '../../common/errors.ts';
import type { Actor } from '../../publish/model.ts';
import { looksLikePublisherToken } from '../../publish/publishers.ts';
import { PUBLISH_LIMITS, describeBytes } from '../../publish/limits.ts';
import { BEARER } from '../admin-auth.ts';
import type { HostServices } from '../services.ts';

const ARCHIVE_TYPES = new Set(['application/gzip', 'application/x-gzip', 'application/octet-stream']);
const VERSION = /^[1-9][0-9]{0,8}$/;

/** The admin's way in, or a publisher token (`ihp_…`): either sets `ctx.state.actor`. */
export function createPublisherAuth(services: HostServices, adminAuth: Middleware): Middleware {
  return async (ctx, next) => {
    const token = BEARER.exec(ctx.get('authorization'))?.[1];
    if (token !== undefined && looksLikePublisherToken(token)) {
      ctx.state.actor = await services.publishing.authenticate(token);
      return next();
    }
    return adminAuth(ctx, async () => {
      ctx.state.actor = { kind: 'admin' } satisfies Actor;
      await next();
    });
  };
}

const actorOf = (ctx: Context): Actor => ctx.state.actor as Actor;

function versionParam(ctx: Context): number {
  const raw = ctx.params.version;
  if (!VERSION.test(raw))
    throw new HostError('ERR_VALIDATION', '/version: must be a version number (1, 2, …)', [
      { pointer: '/version', message: 'must be a version number' },
    ]);
  return Number(raw);
}

export function registerVersionRoutes(router: Router, services: HostServices, adminAuth: Middleware): void {
  const auth = createPublisherAuth(services, adminAuth);

  router.post('/v1/integrations/:name/versions', auth, async (ctx) => {
    const type = (ctx.get('content-type').split(';')[0] ?? '').trim().toLowerCase();
    if (!ARCHIVE_TYPES.has(type))
      throw new HostError(
        'ERR_UNSUPPORTED_MEDIA_TYPE',
        'the body must be a gzipped tar (Content-Type: application/gzip); `integration-host publish` makes one',
      );
    const declared = Number(ctx.get('content-length') || '0');
    if (declared > PUBLISH_LIMITS.maxArchiveBytes)
      throw new HostError(
        'ERR_ARCHIVE_TOO_LARGE',
        `the upload is over ${describeBytes(PUBLISH_LIMITS.maxArchiveBytes)}; nothing was stored; ` +
          'make the integration smaller',
      );
    const { version, created, warnings } = await services.publishing.publish(actorOf(ctx), ctx.params.name, ctx.req);
    ctx.status = created ? 201 : 200;
    ctx.body = { ...version, warnings };
  });

  router.get('/v1/integrations/:name/versions', auth, async (ctx) => {
    ctx.body = { items: await services.publishing.versions(actorOf(ctx), ctx.params.name) };
  });

  router.post('/v1/integrations/:name/versions/:version/current', auth, async (ctx) => {
    ctx.body = await services.publishing.makeCurrent(actorOf(ctx), ctx.params.name, versionParam(ctx));
  });
}

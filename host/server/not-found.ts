// Answers requests no route handled: 405 with `Allow` when the path exists under other methods,
// else 404. Must never answer a request a route did handle.

import type { RouterContext } from '@koa/router';
import type { Middleware } from 'koa';
import { HostError } from '../common/errors.ts';
import { readyForRefusal } from './discard-body.ts';
import { writeError } from './errors-middleware.ts';

export function createNotFound(): Middleware {
  return async (ctx, next) => {
    await next();
    const routed = ctx as unknown as RouterContext;
    if (routed.routeMatched) return;
    const allowed = new Set<string>();
    for (const layer of routed.matched ?? []) for (const method of layer.methods) allowed.add(method);
    if (allowed.size === 0) {
      writeError(
        ctx,
        new HostError('ERR_NOT_FOUND', `no route for ${ctx.method} ${ctx.path}`),
        {},
        await readyForRefusal(ctx.req, ctx.res),
      );
      return;
    }
    const allow = [...allowed].join(', ');
    if (ctx.method === 'OPTIONS') {
      ctx.status = 204;
      ctx.set('Allow', allow);
      return;
    }
    writeError(
      ctx,
      new HostError('ERR_METHOD_NOT_ALLOWED', `${ctx.method} is not allowed on ${ctx.path} (allowed: ${allow})`),
      { Allow: allow },
      await readyForRefusal(ctx.req, ctx.res),
    );
  };
}

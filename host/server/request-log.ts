// Gives each request a short id (`x-request-id`, also the context of the work it causes) and
// writes its one access-log line, which carries that id. Must never log query strings or bodies:
// they can carry tokens and personal data.

import { randomBytes } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import type { Logger } from '../common/logger.ts';
import { withRequestId } from '../common/request-context.ts';

const REQUEST_ID = Symbol('requestId');

export function requestIdOf(ctx: Context): string {
  return (ctx.state as Record<symbol, string | undefined>)[REQUEST_ID] ?? '-';
}

export function createRequestLog(log: Logger): Middleware {
  return async (ctx, next) => {
    const startedAt = performance.now();
    const id = randomBytes(6).toString('base64url');
    (ctx.state as Record<symbol, string>)[REQUEST_ID] = id;
    ctx.set('x-request-id', id);
    try {
      await withRequestId(id, next);
    } finally {
      const ms = Math.round(performance.now() - startedAt);
      log.info(`${ctx.method} ${ctx.path} ${ctx.status} ${ms}ms req=${id}`);
    }
  };
}

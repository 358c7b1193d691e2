// Gives each request a short id (`x-request-id`, also the context of the work it causes) and
// writes its one access-log line, which carries that id. Must never log query strings or bodies:
// they can carry tokens and personal data.

import type { Context, Middleware } from 'koa';
import type { Logger } from '../common/logger.ts';
import { withRequestId } from '../common/request-context.ts';
import { pooledRandomIds } from '../common/random-ids.ts';

const REQUEST_ID = Symbol('requestId');

export function requestIdOf(ctx: Context): string {
  return (ctx.state as Record<symbol, string | undefined>)[REQUEST_ID] ?? '-';
}

/**
 * Request ids are shown to every caller, so they stay unpredictable (a counter would tell anyone
 * how busy the host is); random bytes are drawn 1,024 ids at a time instead of once per request.
 */
const ID_BYTES = 6;
const IDS_PER_DRAW = 1_024;

/** A source of request ids: the Koa app and the direct public path in front of it share one. */
export function requestIdSource(): () => string {
  return pooledRandomIds(ID_BYTES, IDS_PER_DRAW, 'base64url');
}

/** The one access-log line of a request (`path` without its query). */
export function accessLogLine(
  method: string,
  path: string,
  status: number,
  startedAt: number,
  requestId: string,
): string {
  return `${method} ${path} ${status} ${Math.round(performance.now() - startedAt)}ms req=${requestId}`;
}

export function createRequestLog(log: Logger, nextId: () => string = requestIdSource()): Middleware {
  return async (ctx, next) => {
    const startedAt = performance.now();
    const id = nextId();
    (ctx.state as Record<symbol, string>)[REQUEST_ID] = id;
    ctx.set('x-request-id', id);
    try {
      await withRequestId(id, next);
    } finally {
      log.info(accessLogLine(ctx.method, ctx.path, ctx.status, startedAt, id));
    }
  };
}

// Turns every failure of a request into the JSON error body of docs/http-api.md. Owns the mapping
// from thrown values to codes; must never put a stack, path or foreign message in a 5xx body.

import type { Context, Middleware } from 'koa';
import { HostError, isHostError, type ErrorCode } from '../common/errors.ts';
import type { Logger } from '../common/logger.ts';
import { readyForRefusal } from './discard-body.ts';
import { requestIdOf } from './request-log.ts';

// Errors thrown by Koa or the router (http-errors) carry a status but no code of ours.
const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: 'ERR_BAD_REQUEST',
  401: 'ERR_UNAUTHORIZED',
  403: 'ERR_FORBIDDEN',
  404: 'ERR_NOT_FOUND',
  405: 'ERR_METHOD_NOT_ALLOWED',
  413: 'ERR_PAYLOAD_TOO_LARGE',
  415: 'ERR_UNSUPPORTED_MEDIA_TYPE',
};

function statusOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const status =
    (error as { status?: unknown; statusCode?: unknown }).status ?? (error as { statusCode?: unknown }).statusCode;
  return typeof status === 'number' ? status : undefined;
}

/**
 * The HostError a failure of request `requestId` (`method path`) is answered with. An unknown
 * failure is logged with everything and answered with the request id only.
 */
export function toHostError(error: unknown, requestId: string, method: string, path: string, log: Logger): HostError {
  if (isHostError(error)) return error;
  const status = statusOf(error);
  const exposed = (error as { expose?: unknown } | null)?.expose === true;
  if (status !== undefined && status >= 400 && status < 500) {
    const message = exposed && error instanceof Error ? error.message : 'bad request';
    return new HostError(CODE_BY_STATUS[status] ?? 'ERR_BAD_REQUEST', message);
  }
  // Unknown failure: the client gets only the request id; the log gets everything.
  const detail = error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : String(error);
  log.error(`request ${requestId} (${method} ${path}) failed: ${detail}`);
  return new HostError('ERR_INTERNAL', `internal error (request ${requestId})`);
}

/**
 * Replaces whatever the route had started to set with the error response. `close`: the request's
 * body is left unread (readyForRefusal), so the connection ends with this answer.
 */
export function writeError(ctx: Context, error: HostError, headers: Record<string, string>, close: boolean): void {
  const requestId = ctx.response.get('x-request-id');
  if (!ctx.headerSent) {
    for (const name of ctx.res.getHeaderNames()) ctx.res.removeHeader(name);
  }
  if (requestId) ctx.set('x-request-id', String(requestId));
  if (error.code === 'ERR_UNAUTHORIZED') ctx.set('WWW-Authenticate', 'Bearer');
  for (const [name, value] of Object.entries(headers)) ctx.set(name, value);
  // A body left unread must not be drained by Node on a keep-alive connection: close it instead.
  if (close) ctx.set('Connection', 'close');
  ctx.status = error.status;
  ctx.body = error.toBody();
}

export function createErrorMiddleware(log: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      const answer = toHostError(error, requestIdOf(ctx), ctx.method, ctx.path, log);
      // The rest of a body refused before it was read (413, early auth failure) is drained up to a
      // bound: closing with it unread would reset the connection and could lose this very answer.
      writeError(ctx, answer, {}, await readyForRefusal(ctx.req, ctx.res));
    }
  };
}

// Guards the admin routes: `Authorization: Bearer <admin token>` everywhere, and on the console's
// listener also a console session (cookie + CSRF token, console/session-auth.ts). Owns only that
// check; it must never log or echo a presented token, and never compare secrets with `===`.

import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import { HostError } from '../common/errors.ts';

export const BEARER = /^Bearer[ \t]+([A-Za-z0-9\-._~+/]+=*)[ \t]*$/i;

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/** Constant-time equality of two secrets; digests have a fixed length, so the length never leaks either. */
export function secretsEqual(presented: string, expected: string): boolean {
  return timingSafeEqual(digest(presented), digest(expected));
}

/** A second way in, used only where it is passed (the console listener). */
export interface SessionAuth {
  /** Whether the request carries a session credential at all (the cookie). */
  present(ctx: Context): boolean;
  /** Throws HostError (401 expired or unknown, 403 cross-site or without the CSRF token) unless the request may act. */
  authenticate(ctx: Context): void;
}

/** How an admin request was authenticated: a console session, or the bearer token (the API). */
export function adminViaOf(ctx: Context): 'api' | 'console' {
  return ctx.state.adminVia === 'console' ? 'console' : 'api';
}

/** 401 when the credentials are missing or malformed, 403 when they are wrong. */
export function createAdminAuth(adminToken: string, sessionAuth?: SessionAuth): Middleware {
  const expected = digest(adminToken);
  return async (ctx, next) => {
    const header = ctx.get('authorization');
    if (!header && sessionAuth?.present(ctx)) {
      sessionAuth.authenticate(ctx);
      ctx.state.adminVia = 'console';
      await next();
      return;
    }
    const match = BEARER.exec(header);
    if (!match) {
      const missing = sessionAuth ? 'admin token or console session required' : 'admin token required';
      throw new HostError('ERR_UNAUTHORIZED', header ? 'Authorization header must be "Bearer <admin token>"' : missing);
    }
    if (!timingSafeEqual(digest(match[1]), expected)) {
      throw new HostError('ERR_FORBIDDEN', 'admin token is not valid');
    }
    await next();
  };
}

// Guards the admin routes with `Authorization: Bearer <admin token>`. Owns only that check; it must
// never log or echo a presented token, and never compare tokens with a timing-dependent `===`.

import { createHash, timingSafeEqual } from 'node:crypto';
import type { Middleware } from 'koa';
import { HostError } from '../common/errors.ts';

const BEARER = /^Bearer[ \t]+([A-Za-z0-9\-._~+/]+=*)[ \t]*$/i;

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/** 401 when the credentials are missing or malformed, 403 when they are wrong. */
export function createAdminAuth(adminToken: string): Middleware {
  // Digests have a fixed length, so timingSafeEqual never leaks the token's length either.
  const expected = digest(adminToken);
  return async (ctx, next) => {
    const header = ctx.get('authorization');
    const match = BEARER.exec(header);
    if (!match) {
      throw new HostError('ERR_UNAUTHORIZED', header ? 'Authorization header must be "Bearer <admin token>"' : 'admin token required');
    }
    if (!timingSafeEqual(digest(match[1]), expected)) {
      throw new HostError('ERR_FORBIDDEN', 'admin token is not valid');
    }
    await next();
  };
}

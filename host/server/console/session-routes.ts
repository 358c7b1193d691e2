// The console's sign-in and sign-out: `POST /console/session` exchanges the admin token for a
// session cookie (HttpOnly, SameSite=Strict, Path=/) and a CSRF token, `GET /console/session`
// tells the page its CSRF token again, `DELETE /console/session` ends it. Never puts the admin
// token in the cookie, a log line or an answer.

import type Router from '@koa/router';
import type { Context } from 'koa';
import { HostError } from '../../common/errors.ts';
import { secretsEqual } from '../admin-auth.ts';
import { isPlainObject, readJsonBody } from '../json-body.ts';
import type { ConsoleSession, ConsoleSessions } from './sessions.ts';
import { checkSameOrigin, createSessionAuth } from './session-auth.ts';

export interface SessionRoutesOptions {
  adminToken: string;
  sessions: ConsoleSessions;
  cookieName: string;
  /** The session auth built on the same sessions and cookie name. */
  auth: ReturnType<typeof createSessionAuth>;
}

function setSessionCookie(ctx: Context, name: string, value: string, maxAgeSeconds: number): void {
  // Written by hand so every flag is exactly as documented (docs/console.md). `Secure` only when
  // the request itself came over TLS: a browser drops a Secure cookie set over plain http.
  const flags = [`${name}=${value}`, 'Path=/', `Max-Age=${maxAgeSeconds}`, 'HttpOnly', 'SameSite=Strict'];
  if (ctx.secure) flags.push('Secure');
  ctx.append('Set-Cookie', flags.join('; '));
}

function describe(session: ConsoleSession): { csrfToken: string; expiresAt: string } {
  return { csrfToken: session.csrfToken, expiresAt: new Date(session.expiresAt).toISOString() };
}

export function registerSessionRoutes(router: Router, options: SessionRoutesOptions): void {
  const { sessions, cookieName, auth } = options;

  router.post('/console/session', async (ctx) => {
    // A sign-in form posted from another site must not log the browser in (login CSRF).
    checkSameOrigin(ctx);
    const body = await readJsonBody(ctx, 4096);
    const token = isPlainObject(body) ? body.token : undefined;
    if (typeof token !== 'string' || token === '') {
      throw new HostError('ERR_VALIDATION', '/token: the admin token is required', [
        { pointer: '/token', message: 'is required' },
      ]);
    }
    if (!secretsEqual(token, options.adminToken)) throw new HostError('ERR_FORBIDDEN', 'admin token is not valid');
    const previous = ctx.cookies.get(cookieName);
    if (previous) sessions.delete(previous);
    const { id, session } = sessions.create();
    setSessionCookie(ctx, cookieName, id, Math.floor(sessions.ttlMs / 1000));
    ctx.status = 201;
    ctx.body = describe(session);
  });

  router.get('/console/session', (ctx) => {
    checkSameOrigin(ctx);
    const found = auth.sessionOf(ctx);
    if (found === undefined) throw new HostError('ERR_UNAUTHORIZED', 'not signed in to the console');
    ctx.body = describe(found.session);
  });

  router.delete('/console/session', (ctx) => {
    // The same checks as any state-changing console request: a cross-site page cannot sign you out.
    auth.authenticate(ctx);
    const found = auth.sessionOf(ctx);
    if (found !== undefined) sessions.delete(found.id);
    setSessionCookie(ctx, cookieName, '', 0);
    ctx.status = 204;
  });
}

// How a console session authenticates an admin request on the console's listener: the session
// cookie, a same-origin browser request (fetch metadata and Origin), and the session's CSRF token
// in `X-CSRF-Token`, compared in constant time. Must never accept the cookie alone: a cookie is
// sent by the browser whoever started the request.

import type { Context } from 'koa';
import { HostError } from '../../common/errors.ts';
import { secretsEqual, type SessionAuth } from '../admin-auth.ts';
import type { ConsoleSession, ConsoleSessions } from './sessions.ts';

export const CSRF_HEADER = 'x-csrf-token';

/**
 * The cookie carries the port: cookies are scoped by host name, not port, so two hosts on one
 * machine (a dev host and a test host) would otherwise sign each other out.
 */
export function sessionCookieName(port: number): string {
  return `console_session_${port}`;
}

/**
 * Refuses a request another origin started. Browsers send `Sec-Fetch-Site` (Chromium and Firefox
 * to trustworthy origins such as loopback and https) and `Origin` on every non-GET fetch; either
 * one naming another origin is enough to refuse. Clients without both (curl) carry no cookie.
 */
export function checkSameOrigin(ctx: Context): void {
  const site = ctx.get('sec-fetch-site');
  if (site !== '' && site !== 'same-origin') {
    throw new HostError(
      'ERR_FORBIDDEN',
      `the console refuses requests started by another site (Sec-Fetch-Site: ${site})`,
    );
  }
  const origin = ctx.get('origin');
  const own = `${ctx.protocol}://${ctx.host}`;
  if (origin !== '' && origin !== own) {
    throw new HostError(
      'ERR_FORBIDDEN',
      `the console refuses requests from another origin (Origin: ${origin}, expected ${own})`,
    );
  }
}

export function createSessionAuth(
  sessions: ConsoleSessions,
  cookieName: string,
): SessionAuth & { sessionOf(ctx: Context): { id: string; session: ConsoleSession } | undefined } {
  const sessionOf = (ctx: Context) => {
    const id = ctx.cookies.get(cookieName);
    if (!id) return undefined;
    const session = sessions.get(id);
    return session === undefined ? undefined : { id, session };
  };
  return {
    sessionOf,
    present: (ctx) => Boolean(ctx.cookies.get(cookieName)),
    authenticate(ctx) {
      const found = sessionOf(ctx);
      if (found === undefined)
        throw new HostError('ERR_UNAUTHORIZED', 'the console session has expired or was signed out; sign in again');
      checkSameOrigin(ctx);
      const presented = ctx.get(CSRF_HEADER);
      if (presented === '')
        throw new HostError('ERR_FORBIDDEN', `a console request needs the session's CSRF token in ${CSRF_HEADER}`);
      if (!secretsEqual(presented, found.session.csrfToken))
        throw new HostError('ERR_FORBIDDEN', `the ${CSRF_HEADER} header does not match this session`);
    },
  };
}

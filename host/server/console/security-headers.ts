// Response headers of everything the console listener answers: the strict Content-Security-Policy
// of the console page (no inline script or style, no plugin, no framing of the console, webframes
// only over http(s), DOM string sinks locked by Trusted Types), no sniffing, no referrer, no caching
// of API answers. Never loosens a header a route set itself.

import type { Middleware } from 'koa';

/** The policy of the console page (docs/console.md explains each directive). */
export const CONSOLE_PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' http: https:",
  "connect-src 'self'",
  // Webframes: guest pages over http(s), always in <iframe sandbox="allow-scripts"> (an opaque origin).
  'frame-src http: https:',
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  // innerHTML and friends throw: no string ever becomes markup in the console.
  "require-trusted-types-for 'script'",
  "trusted-types 'none'",
].join('; ');

/** API answers and assets are not documents; they get a policy that allows nothing at all. */
const NON_DOCUMENT_CSP = "default-src 'none'; frame-ancestors 'none'";

export function createSecurityHeaders(): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } finally {
      // Error answers replace every header (errors-middleware); set these on whatever went out.
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.set('Referrer-Policy', 'no-referrer');
      ctx.set('X-Frame-Options', 'DENY');
      ctx.set('Cross-Origin-Opener-Policy', 'same-origin');
      ctx.set('Cross-Origin-Resource-Policy', 'same-origin');
      if (!ctx.response.get('Content-Security-Policy')) ctx.set('Content-Security-Policy', NON_DOCUMENT_CSP);
      if (!ctx.response.get('Cache-Control')) ctx.set('Cache-Control', 'no-store');
    }
  };
}

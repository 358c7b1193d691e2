// The request target (path and query) exactly as the client sent it. Pure; it never decodes or
// normalizes, so what routes pass on is what the client asked for.

import type { Context } from 'koa';

/** Path and query as the client sent them, even for an absolute-form request target. */
export function requestTarget(ctx: Context): string {
  const raw = ctx.req.url ?? '/';
  if (raw.startsWith('/')) return raw;
  const url = new URL(raw);
  return `${url.pathname}${url.search}`;
}

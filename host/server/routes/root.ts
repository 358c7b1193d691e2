// `GET /` on the API listener: nothing is served at the root, so the answer is a 404 like any
// unrouted path, with a body pointing whoever opened the address to the console and the HTTP API
// docs. The usual JSON error body for clients that ask for JSON; reveals nothing else.

import type Router from '@koa/router';
import type { Context } from 'koa';
import { HostError } from '../../common/errors.ts';

const DOCS = "docs/http-api.md in the host's repository";

/** The pointers, one per line: the console (when it runs), the API docs, an example call, health. */
function pointers(consoleUrl: string | undefined): string[] {
  return [
    "This is the integration host's HTTP API; nothing is served at /.",
    consoleUrl === undefined
      ? 'Console: not running on this host (--no-console, or a host made from code without consolePort).'
      : `Console: ${consoleUrl}/console (sign in with the admin token the host printed).`,
    `HTTP API: described at GET /openapi.json (OpenAPI 3.1) and in ${DOCS}; for ` +
      `example GET /v1/integrations with "Authorization: Bearer <admin token>".`,
    'Health: GET /health.',
  ];
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

function html(consoleUrl: string | undefined): string {
  const items = pointers(consoleUrl)
    .slice(1)
    .map((line) => {
      const text = escapeHtml(line);
      if (consoleUrl === undefined) return `<li>${text}</li>`;
      return `<li>${text.replace(escapeHtml(`${consoleUrl}/console`), (url) => `<a href="${url}">${url}</a>`)}</li>`;
    });
  return (
    `<!doctype html>\n<meta charset="utf-8">\n<title>Integration ` +
    `host</title>\n<p>${escapeHtml(pointers(consoleUrl)[0])}</p>\n<ul>\n${items.join('\n')}\n</ul>\n`
  );
}

/** Whether the client asked for JSON by name (a browser's or curl's `*\/*` is not asking). */
function wantsJson(ctx: Context): boolean {
  return /application\/(?:[\w.+-]*\+)?json/i.test(ctx.get('accept'));
}

export function registerRootPointer(router: Router, consoleUrl: string | undefined): void {
  router.get('/', (ctx) => {
    if (wantsJson(ctx)) {
      const where = consoleUrl === undefined ? '' : `; the console is at ${consoleUrl}/console`;
      const error = new HostError(
        'ERR_NOT_FOUND',
        `no route for GET /: this is the host's HTTP API, described in ${DOCS}${where}`,
      );
      ctx.status = error.status;
      ctx.body = error.toBody();
      return;
    }
    ctx.status = 404;
    // The page only links out: no script, no style, no framing.
    ctx.set('Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'");
    ctx.set('X-Content-Type-Options', 'nosniff');
    if (/text\/html/i.test(ctx.get('accept'))) {
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = html(consoleUrl);
    } else {
      ctx.type = 'text/plain; charset=utf-8';
      ctx.body = `${pointers(consoleUrl).join('\n')}\n`;
    }
  });
}

// The console's listener over HTTP: its page and headers (strict CSP), sign-in exchanging the
// admin token for an HttpOnly SameSite=Strict session cookie, the CSRF defence (token, fetch
// metadata, Origin) on every cookie-authenticated request, sign-out and expiry. The API listener
// never accepts the cookie.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { ADMIN_TOKEN, startTestHost, type TestHost } from '../helpers/host.ts';
import { consoleUrlOf, signInOverHttp } from '../helpers/console-session.ts';

const HOUR = 60 * 60 * 1000;
let host: TestHost;
let now = Date.now();
let base: string;

beforeAll(async () => {
  host = await startTestHost({
    dirs: ['fixtures/integrations'],
    consolePort: 0,
    clock: () => now,
    consoleSessionTtlMs: 2 * HOUR,
  });
  base = consoleUrlOf(host);
});
afterAll(() => host?.close());

describe('the console listener', () => {
  it('has its own port, and GET /console on the API port redirects there', async () => {
    expect(base).not.toBe(host.url);
    const redirect = await fetch(`${host.url}/console`, { redirect: 'manual' });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('location')).toBe(`${base}/console`);
  });

  it('serves the page for every console path with a strict Content-Security-Policy and no inline script', async () => {
    for (const path of ['/console', '/console/', '/console/integrations/counter', '/console/events']) {
      const response = await fetch(`${base}${path}`);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      const csp = response.headers.get('content-security-policy') ?? '';
      for (const directive of [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "frame-ancestors 'none'",
        'frame-src http: https:',
        "require-trusted-types-for 'script'",
      ]) {
        expect(csp, directive).toContain(directive);
      }
      expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
      expect(response.headers.get('x-frame-options')).toBe('DENY');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      const html = await response.text();
      // Every <script> has a src on this origin and no body; no inline event handler or style.
      expect([...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)].map((m) => [m[1].trim(), m[2]])).toEqual([
        ['type="module" src="/console/assets/console.js"', ''],
      ]);
      expect(html).not.toMatch(/\son\w+=|style=|<style/i);
    }
  });

  it('serves the two bundles and the icon, and nothing else, under /console/assets', async () => {
    const js = await fetch(`${base}/console/assets/console.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect((await js.text()).length).toBeGreaterThan(10_000);
    const css = await fetch(`${base}/console/assets/console.css`);
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);
    const etag = css.headers.get('etag')!;
    expect((await fetch(`${base}/console/assets/console.css`, { headers: { 'if-none-match': etag } })).status).toBe(
      304,
    );
    for (const path of [
      '/console/assets/nope.js',
      '/console/assets/..%2Fpackage.json',
      '/console/assets/%2e%2e%2findex.html',
    ]) {
      expect((await fetch(`${base}${path}`)).status, path).toBe(404);
    }
  });

  it('does not serve public endpoints or the platform API: no integration content on the console origin', async () => {
    const dev = host.devInstallations.find((entry) => entry.integration === 'hello')!.installation!;
    const onConsole = await fetch(`${base}/v1/integrations/hello/installations/${dev.id}`, { method: 'POST' });
    expect(onConsole.status).toBe(404);
    expect((await fetch(`${host.url}/v1/integrations/hello/installations/${dev.id}`, { method: 'POST' })).status).toBe(
      200,
    );
    expect((await fetch(`${base}/v1/spaces/space_acme_docs`)).status).toBe(404);
  });
});

describe('sign-in', () => {
  it('refuses a wrong token with 403 and sets no cookie', async () => {
    const response = await fetch(`${base}/console/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'sec-fetch-site': 'same-origin' },
      body: JSON.stringify({ token: 'not-the-admin-token-at-all' }),
    });
    expect(response.status).toBe(403);
    expect(response.headers.get('set-cookie')).toBeNull();
    expect((await response.json()).error.code).toBe('ERR_FORBIDDEN');
  });

  it('refuses a missing token (400 naming it) and a sign-in posted by another site', async () => {
    const missing = await fetch(`${base}/console/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(missing.status).toBe(400);
    expect((await missing.json()).error.details).toEqual([{ pointer: '/token', message: 'is required' }]);
    const crossSite = await fetch(`${base}/console/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'http://evil.test', 'sec-fetch-site': 'cross-site' },
      body: JSON.stringify({ token: ADMIN_TOKEN }),
    });
    expect(crossSite.status).toBe(403);
    expect(crossSite.headers.get('set-cookie')).toBeNull();
    // A form cannot send JSON: a urlencoded sign-in is refused before the token is read.
    const form = await fetch(`${base}/console/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `token=${ADMIN_TOKEN}`,
    });
    expect(form.status).toBe(415);
    expect(form.headers.get('set-cookie')).toBeNull();
  });

  it(
    'sets an HttpOnly, SameSite=Strict, Path=/ session cookie that does not contain the token, and returns a CSRF ' +
      'token',
    async () => {
      const client = await signInOverHttp(host);
      const flags = client.setCookie.split(';').map((part) => part.trim());
      const [name, value] = flags[0].split('=');
      expect(name).toBe(`console_session_${new URL(base).port}`);
      expect(value).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(client.setCookie).not.toContain(ADMIN_TOKEN);
      expect(flags).toContain('HttpOnly');
      expect(flags).toContain('SameSite=Strict');
      expect(flags).toContain('Path=/');
      expect(flags).toContain(`Max-Age=${2 * 60 * 60}`);
      expect(client.csrfToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(client.csrfToken).not.toBe(value);
      const session = await client.call('/console/session');
      expect(session.status).toBe(200);
      expect((await session.json()).csrfToken).toBe(client.csrfToken);
    },
  );
});

describe('admin routes with a console session', () => {
  it('answer reads and writes made the way the console page makes them', async () => {
    const client = await signInOverHttp(host);
    const list = await client.call('/v1/integrations');
    expect(list.status).toBe(200);
    expect((await list.json()).items.map((item: { name: string }) => item.name)).toContain('counter');
    const created = await client.call('/v1/integrations/hello/installations', {
      method: 'POST',
      body: JSON.stringify({ organization: 'acme', target: 'organization' }),
    });
    expect(created.status).toBe(201);
    expect((await client.call(`/v1/installations/${(await created.json()).id}`, { method: 'DELETE' })).status).toBe(
      204,
    );
  });

  it('refuse the cookie without the CSRF token, for reads and writes', async () => {
    const client = await signInOverHttp(host);
    for (const [method, path, body] of [
      ['GET', '/v1/integrations', undefined],
      ['POST', '/v1/events', '{"type":"space_content_updated","spaceId":"space_acme_docs","revisionId":"r1"}'],
    ] as const) {
      const response = await fetch(`${base}${path}`, {
        method,
        headers: { cookie: client.cookie, 'content-type': 'application/json', 'sec-fetch-site': 'same-origin' },
        ...(body ? { body } : {}),
      });
      expect(response.status, `${method} ${path}`).toBe(403);
      expect((await response.json()).error.message).toMatch(/CSRF token/);
    }
    const wrong = await client.call('/v1/integrations', { headers: { 'x-csrf-token': 'A'.repeat(43) } });
    expect(wrong.status).toBe(403);
    expect((await wrong.json()).error.message).toMatch(/does not match/);
  });

  it('refuse a cross-site form post even with the cookie, and nothing is published', async () => {
    const client = await signInOverHttp(host);
    const before = await (await host.admin('/v1/integrations/event-log/events?limit=200')).json();
    // What a browser sends for <form method=post action=…/v1/events> on another site (were the cookie sent).
    const response = await fetch(`${base}/v1/events`, {
      method: 'POST',
      headers: {
        cookie: client.cookie,
        origin: 'http://evil.test',
        'sec-fetch-site': 'cross-site',
        'sec-fetch-mode': 'navigate',
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'type=space_content_updated&spaceId=space_acme_docs&revisionId=r1',
    });
    expect(response.status).toBe(403);
    const after = await (await host.admin('/v1/integrations/event-log/events?limit=200')).json();
    expect(after.items.length).toBe(before.items.length);
  });

  it('refuse a request another origin of the same site started, even with the right CSRF token', async () => {
    const client = await signInOverHttp(host);
    const sameSite = await client.call('/v1/integrations', { headers: { 'sec-fetch-site': 'same-site' } });
    expect(sameSite.status).toBe(403);
    expect((await sameSite.json()).error.message).toMatch(/another site/);
    const otherOrigin = await client.call('/v1/events', {
      method: 'POST',
      headers: { origin: host.url },
      body: '{"type":"space_content_updated","spaceId":"space_acme_docs","revisionId":"r1"}',
    });
    expect(otherOrigin.status).toBe(403);
    expect((await otherOrigin.json()).error.message).toMatch(/another origin/);
  });

  it('are never opened by the cookie on the API listener', async () => {
    const client = await signInOverHttp(host);
    const response = await fetch(`${host.url}/v1/integrations`, {
      headers: { cookie: client.cookie, 'x-csrf-token': client.csrfToken, 'sec-fetch-site': 'same-origin' },
    });
    expect(response.status).toBe(401);
  });

  it('still accept the bearer token on both listeners', async () => {
    for (const url of [host.url, base]) {
      expect(
        (await fetch(`${url}/v1/integrations`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).status,
        url,
      ).toBe(200);
    }
    expect((await fetch(`${base}/v1/integrations`)).status).toBe(401);
  });
});

describe('sign-out and expiry', () => {
  it('sign-out needs the CSRF token, then ends the session for good', async () => {
    const client = await signInOverHttp(host);
    const refused = await fetch(`${base}/console/session`, {
      method: 'DELETE',
      headers: { cookie: client.cookie, 'sec-fetch-site': 'same-origin' },
    });
    expect(refused.status).toBe(403);
    expect((await client.call('/v1/integrations')).status).toBe(200);

    const out = await client.call('/console/session', { method: 'DELETE' });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(
      /^console_session_\d+=; Path=\/; Max-Age=0; HttpOnly; SameSite=Strict$/,
    );
    // The old cookie, replayed, opens nothing.
    const after = await client.call('/v1/integrations');
    expect(after.status).toBe(401);
    expect((await after.json()).error.message).toMatch(/expired or was signed out/);
    expect((await client.call('/console/session')).status).toBe(401);
  });

  it('a session expires after its lifetime', async () => {
    const client = await signInOverHttp(host);
    now += 2 * HOUR - 1000;
    expect((await client.call('/v1/integrations')).status).toBe(200);
    now += 2000;
    const expired = await client.call('/v1/integrations');
    expect(expired.status).toBe(401);
    expect((await client.call('/console/session')).status).toBe(401);
  });
});

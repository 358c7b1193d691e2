// Using a signed-in console session from another origin, in a real browser: a guest page served by
// an integration's public endpoint (the API port; the host serves it CSP-sandboxed, an opaque
// origin), a page on another port of the same host name (same site: the browser sends the
// SameSite=Strict cookie) and a page of another site (localhost) try to read the API, read the
// CSRF token, publish an event with fetch and with a form post, and sign the user out. Every
// attempt must fail: nothing read, nothing published, the session intact, and each write answered
// 401 (no cookie) or 403 (cookie without the CSRF token) by the host.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { startTestHost, type TestHost } from '../helpers/host.ts';
import { chromiumMissing, launchBrowser, signIn, type TestBrowser } from '../helpers/browser.ts';

let host: TestHost;
let browser: TestBrowser;
let page: Page;
let consoleUrl: string;
let publicEndpoint: string;
let attackServer: http.Server;
let sameSiteUrl: string;
let otherSiteUrl: string;

async function publishedCount(): Promise<number> {
  const page = await host.admin('/v1/integrations/event-log/events?limit=200').then((response) => response.json());
  return page.items.length;
}

async function runAttack(url: string): Promise<Record<string, string>> {
  const attacker = await browser.context.newPage();
  try {
    await attacker.goto(url);
    await attacker.waitForFunction(() => document.title === 'done');
    return JSON.parse((await attacker.locator('#result').textContent()) ?? '{}');
  } finally {
    await attacker.close();
  }
}

/** The console listener's access-log lines for writes, as `METHOD path status`. */
function consoleWrites(): string[] {
  return host.logs
    .map((line) => /^info console: (POST|PATCH|DELETE|PUT) (\S+) (\d{3}) /.exec(line))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => `${match[1]} ${match[2]} ${match[3]}`);
}

describe.skipIf(chromiumMissing !== null)('the console session used from another origin', () => {
  beforeAll(async () => {
    host = await startTestHost({ dirs: ['fixtures/integrations', 'fixtures/hostile'], consolePort: 0 });
    consoleUrl = host.consoleUrl!;
    const created = await host.admin('/v1/integrations/console-xss/installations', {
      method: 'POST',
      body: JSON.stringify({ organization: 'acme', target: 'space', space: 'space_acme_docs' }),
    });
    publicEndpoint = (await created.json()).urls.publicEndpoint;
    // The same attack page, served plainly by this test on another port: as 127.0.0.1 it is the
    // console's site (another origin), as localhost another site.
    const attackPage = await (await fetch(`${publicEndpoint}/attack`)).text();
    attackServer = http.createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end(attackPage),
    );
    await new Promise<void>((resolve) => attackServer.listen(0, '127.0.0.1', resolve));
    const port = (attackServer.address() as AddressInfo).port;
    sameSiteUrl = `http://127.0.0.1:${port}/`;
    otherSiteUrl = `http://localhost:${port}/`;
    browser = await launchBrowser();
    page = browser.page;
    await signIn(page, consoleUrl);
  });
  afterAll(async () => {
    await browser?.close();
    await host?.close();
    await new Promise<void>((resolve) => (attackServer ? attackServer.close(() => resolve()) : resolve()));
  });

  it(
    'from an integration page on the API port (served ' + 'sandboxed, an opaque origin): the cookie is not sent',
    async () => {
      const before = await publishedCount();
      const writesBefore = consoleWrites().length;
      const results = await runAttack(`${publicEndpoint}/attack?console=${encodeURIComponent(consoleUrl)}`);
      expect(results.read).toMatch(/^blocked: TypeError/);
      expect(results.session).toMatch(/^blocked: TypeError/);
      expect(results.publishJson).toMatch(/^blocked: TypeError/);
      expect(results.signOut).toMatch(/^blocked: TypeError/);
      expect(results.form).toBe('submitted');
      expect(await publishedCount()).toBe(before);
      // Two publishes reached the host (the no-cors fetch and the form), without the cookie.
      expect(consoleWrites().slice(writesBefore)).toEqual(['POST /v1/events 401', 'POST /v1/events 401']);
      await page.goto(`${consoleUrl}/console/integrations`);
      await page.getByRole('link', { name: 'Counter' }).waitFor();
    },
  );

  it(
    'from another port of the same host name (same site): the cookie arrives without the CSRF token, and is ' +
      'refused',
    async () => {
      const before = await publishedCount();
      const writesBefore = consoleWrites().length;
      const results = await runAttack(`${sameSiteUrl}?console=${encodeURIComponent(consoleUrl)}`);
      expect(results.read).toMatch(/^blocked: TypeError/);
      expect(results.session).toMatch(/^blocked: TypeError/);
      expect(results.publishJson).toMatch(/^blocked: TypeError/);
      // A cross-origin DELETE needs a preflight the console never grants: the browser does not send it.
      expect(results.signOut).toMatch(/^blocked: TypeError/);
      expect(results.form).toBe('submitted');
      expect(await publishedCount()).toBe(before);
      expect(consoleWrites().slice(writesBefore)).toEqual(['POST /v1/events 403', 'POST /v1/events 403']);
      await page.goto(`${consoleUrl}/console/integrations`);
      await page.getByRole('link', { name: 'Counter' }).waitFor();
    },
  );

  it('from another site (localhost): the Strict cookie is not even sent', async () => {
    const before = await publishedCount();
    const writesBefore = consoleWrites().length;
    const results = await runAttack(`${otherSiteUrl}?console=${encodeURIComponent(consoleUrl)}`);
    expect(results.read).toMatch(/^blocked: TypeError/);
    expect(results.session).toMatch(/^blocked: TypeError/);
    expect(results.form).toBe('submitted');
    expect(await publishedCount()).toBe(before);
    const writes = consoleWrites().slice(writesBefore);
    expect(writes).toEqual(['POST /v1/events 401', 'POST /v1/events 401']);
    expect(results.signOut).toMatch(/^blocked: TypeError/);
    await page.goto(`${consoleUrl}/console/integrations`);
    await page.getByRole('link', { name: 'Counter' }).waitFor();
  });
});

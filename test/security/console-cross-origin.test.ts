// Using a signed-in console session from another origin, in a real browser: a guest page served by
// an integration's public endpoint (the API port: same site, other origin) and a page of another
// site (localhost) try to read the API, read the CSRF token, publish an event with fetch and with
// a form post, and sign the user out. Every attempt must fail: nothing read, nothing published,
// the session intact, and each write answered 401/403 by the host.
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
let otherSite: http.Server;
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
    const created = await host.admin('/v1/integrations/console-xss/installations', { method: 'POST', body: JSON.stringify({ organization: 'acme', target: 'space', space: 'space_acme_docs' }) });
    publicEndpoint = (await created.json()).urls.publicEndpoint;
    // Another site: the same attack page served from `localhost` (a different host name than 127.0.0.1).
    const attackPage = await (await fetch(`${publicEndpoint}/attack`)).text();
    otherSite = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(attackPage));
    await new Promise<void>((resolve) => otherSite.listen(0, '127.0.0.1', resolve));
    otherSiteUrl = `http://localhost:${(otherSite.address() as AddressInfo).port}/`;
    browser = await launchBrowser();
    page = browser.page;
    await signIn(page, consoleUrl);
  });
  afterAll(async () => {
    await browser?.close();
    await host?.close();
    await new Promise<void>((resolve) => (otherSite ? otherSite.close(() => resolve()) : resolve()));
  });

  it('from an integration page on the API port (same site, other origin): nothing read, nothing done', async () => {
    const before = await publishedCount();
    const writesBefore = consoleWrites().length;
    const results = await runAttack(`${publicEndpoint}/attack?console=${encodeURIComponent(consoleUrl)}`);
    expect(results.read).toMatch(/^blocked: TypeError/);
    expect(results.session).toMatch(/^blocked: TypeError/);
    expect(results.publishJson).toMatch(/^blocked: TypeError/);
    expect(results.form).toBe('submitted');
    expect(await publishedCount()).toBe(before);
    // The browser sent the cookie (same site) without the CSRF token: each write was refused.
    const writes = consoleWrites().slice(writesBefore);
    // Two publishes reached the host (the no-cors fetch and the form); both were refused.
    expect(writes).toEqual(['POST /v1/events 403', 'POST /v1/events 403']);
    // A cross-origin DELETE needs a preflight the console never grants: the browser does not send it.
    expect(results.signOut).toMatch(/^blocked: TypeError/);
    // Still signed in.
    await page.goto(`${consoleUrl}/console/integrations`);
    await page.getByRole('link', { name: 'Counter' }).waitFor();
  });

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

// A site's published scripts through the real host: GET /v1/site-scripts/:site lists the active
// site installations whose integration injects scripts (an internal scope: page-analytics through
// its first-party organization, script-echo named with firstPartyIntegrations), and each script is
// the integration's fetch_published_script answer, with the host's own headers only. The events
// they receive validate against GitBook's FetchPublishedScriptEvent.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHost, type TestHost } from '../helpers/host.ts';
import { install } from '../helpers/platform-api.ts';
import { expectValidAgainstSpec } from '../helpers/gitbook-spec.ts';

let host: TestHost;
let analytics: string;
let echo: string;

beforeAll(async () => {
  host = await startTestHost({
    dirs: ['fixtures/gitbook', 'test/fixtures/site-script-probe'],
    firstPartyIntegrations: ['script-echo'],
  });
  analytics = (await install(host, 'page-analytics', { organization: 'acme', target: 'site', site: 'site_acme' })).id;
  echo = (await install(host, 'script-echo', { organization: 'acme', target: 'site', site: 'site_acme' })).id;
});
afterAll(() => host?.close());

const list = async (site: string) => (await fetch(`${host.url}/v1/site-scripts/${site}`)).json();

describe('site scripts', () => {
  it("loads an integration with an internal scope only when the operator names it the platform's own", async () => {
    expect(host.integrations.find((integration) => integration.name === 'script-echo')?.status).toBe('ready');
    const other = await startTestHost({ dirs: ['test/fixtures/site-script-probe'], autoInstall: false });
    try {
      const refused = other.integrations.find((integration) => integration.name === 'script-echo')!;
      expect(refused.status).toBe('invalid');
      expect(refused.errors[0].message).toMatch(/scope "site:script:inject" is internal/);
    } finally {
      await other.close();
    }
  });

  it('lists no script while the site installations are not configured', async () => {
    expect(await list('site_acme')).toEqual({ siteId: 'site_acme', items: [] });
  });

  it("lists each configured site installation's script with its policy, on its site only", async () => {
    await host.admin(`/v1/installations/${analytics}/configuration`, {
      method: 'PATCH',
      body: JSON.stringify({ tracking_id: 'G-SITE_1' }),
    });
    await host.admin(`/v1/installations/${echo}/configuration`, {
      method: 'PATCH',
      body: JSON.stringify({ key: 'k-1' }),
    });
    const { items } = await list('site_acme');
    expect(items).toEqual([
      {
        installationId: analytics,
        integration: 'page-analytics',
        url: `${host.url}/v1/site-scripts/site_acme/${analytics}`,
        contentSecurityPolicy: {
          'script-src': 'https://collect.analytics.test;',
          'connect-src': 'https://collect.analytics.test;',
        },
      },
      {
        installationId: echo,
        integration: 'script-echo',
        url: `${host.url}/v1/site-scripts/site_acme/${echo}`,
        contentSecurityPolicy: { 'script-src': 'https://cdn.script-echo.test;' },
      },
    ]);
    expect((await list('site_globex')).items).toEqual([]);
  });

  it(
    'serves the analytics script end to end: the .raw.js ' + "tracker with the site installation's tracking ID",
    async () => {
      const response = await fetch(`${host.url}/v1/site-scripts/site_acme/${analytics}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/javascript; charset=utf-8');
      expect(response.headers.get('cache-control')).toBe('max-age=604800');
      const tracker = readFileSync('fixtures/gitbook/page-analytics/src/tracker.raw.js', 'utf8');
      expect(await response.text()).toBe(
        `/* page-analytics for site site_acme */\n${tracker.replace('<TRACKING_ID>', 'G-SITE_1')}`,
      );
    },
  );

  it(
    'sends a fetch_published_script event valid against ' + "GitBook's spec, and keeps only the host's headers",
    async () => {
      const response = await fetch(`${host.url}/v1/site-scripts/site_acme/${echo}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/javascript; charset=utf-8');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('cache-control')).toBe('max-age=60');
      expect(response.headers.get('set-cookie')).toBeNull();
      expect(response.headers.get('x-script-echo')).toBeNull();
      const text = await response.text();
      const event = JSON.parse(text.slice(3, text.indexOf(' */')));
      expectValidAgainstSpec('FetchPublishedScriptEvent', event);
      expectValidAgainstSpec('Event', event);
      expect(event).toMatchObject({ type: 'fetch_published_script', siteId: 'site_acme', installationId: echo });
      expect(text).toContain('window.scriptEcho = "k-1";');
    },
  );

  it('answers 404 for an installation that serves no script on that site', async () => {
    const preview = await install(host, 'snippet-preview', { organization: 'acme', target: 'site', site: 'site_acme' });
    for (const path of [`site_globex/${echo}`, `site_acme/inst_missing`, `site_acme/${preview.id}`]) {
      const response = await fetch(`${host.url}/v1/site-scripts/${path}`);
      expect(response.status, path).toBe(404);
    }
  });
});

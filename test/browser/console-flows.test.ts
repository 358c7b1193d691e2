// The console in a real browser (Debian's Chromium through playwright-core) against a real host:
// sign in, install, configure with a bad then a good value, connect OAuth against the loopback
// provider until the installation is active, preview the counter and increment it twice, watch a
// dispatch appear in the live event log, redeliver a webhook, rotate its secret, uninstall.
// Every wait is on a condition in the page, never a sleep.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import type { Page } from 'playwright-core';
import { ADMIN_TOKEN, startTestHost, waitFor, type TestHost } from '../helpers/host.ts';
import { chromiumMissing, launchBrowser, signIn, waitForText, type TestBrowser } from '../helpers/browser.ts';
import { startOAuthProvider, type OAuthProvider } from '../../fixtures/oauth-provider/provider.ts';
import { startReceiver, type Receiver } from '../helpers/receivers.ts';

const CLIENT_ID = 'console-test-client';
const CLIENT_SECRET = 'console-test-secret-51c2';

let host: TestHost;
let provider: OAuthProvider;
let receiver: Receiver;
let browser: TestBrowser;
let page: Page;
let consoleUrl: string;

describe.skipIf(chromiumMissing !== null)('the console in the browser', () => {
  beforeAll(async () => {
    provider = await startOAuthProvider({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
    receiver = await startReceiver('{"received":true}');
    host = await startTestHost({
      dirs: ['fixtures/integrations', 'test/fixtures/lifecycle', 'fixtures/gitbook'],
      autoInstall: false,
      allowEgress: ['127.0.0.1'],
      consolePort: 0,
      env: {
        ...process.env,
        SETTINGS_DEMO_API_KEY: 'console-flows',
        OAUTH_DEMO_CLIENT_ID: CLIENT_ID,
        OAUTH_DEMO_CLIENT_SECRET: CLIENT_SECRET,
        OAUTH_DEMO_AUTHORIZE_URL: provider.authorizeURL,
        OAUTH_DEMO_TOKEN_URL: provider.tokenURL,
      },
    });
    consoleUrl = host.consoleUrl!;
    browser = await launchBrowser();
    page = browser.page;
  });
  afterAll(async () => {
    await browser?.close();
    await host?.close();
    await provider?.close();
    await receiver?.close();
  });

  /** Installs through the integration page's form and waits for the installation page. */
  async function installThroughForm(
    integration: string,
    target: 'organization' | 'space' | 'site',
    id?: string,
  ): Promise<string> {
    await page.goto(`${consoleUrl}/console/integrations/${integration}`);
    const form = page.locator('form', { has: page.getByRole('button', { name: 'Install' }) });
    await form.getByLabel('Organization', { exact: true }).fill('acme');
    await form
      .getByRole('radio', {
        name: target === 'organization' ? 'The whole organization' : target === 'space' ? 'A space' : 'A site',
      })
      .check();
    if (target === 'space') await form.getByLabel('Space id').fill(id ?? 'space_acme_docs');
    if (target === 'site') await form.getByLabel('Site id').fill(id ?? 'site_acme');
    await form.getByRole('button', { name: 'Install' }).click();
    await page.waitForURL(/\/console\/installations\/inst_[\w-]+$/);
    return page.url().split('/').at(-1)!;
  }

  it('refuses a wrong admin token with a clear message, then signs in with the keyboard', async () => {
    await page.goto(`${consoleUrl}/console`);
    await page.getByLabel('Admin token').fill('wrong-token-wrong-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'That admin token is not valid' }).waitFor();
    await page.getByLabel('Admin token').fill('');
    await signIn(page, consoleUrl);
    const cookies = await browser.context.cookies(consoleUrl);
    expect(cookies).toHaveLength(1);
    expect(cookies[0]).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' });
    expect(cookies[0].value).not.toContain(ADMIN_TOKEN);
    // The page cannot read its own session cookie.
    expect(await page.evaluate(() => document.cookie)).toBe('');
    await page.getByRole('link', { name: 'Counter' }).waitFor();
  });

  it('installs an integration into a space and shows it pending, with why', async () => {
    const id = await installThroughForm('oauth-demo', 'space');
    await page.getByRole('heading', { level: 1, name: new RegExp(id) }).waitFor();
    await waitForText(page, '.status-panel .why', 'Waiting for: Connection (not connected yet), Channel.');
    expect(await page.locator('.status-panel .badge').textContent()).toBe('pending');
    expect(await page.getByLabel('Public endpoint').inputValue()).toBe(
      `${host.url}/v1/integrations/oauth-demo/installations/${id}`,
    );
  });

  it('shows a 422 next to the field it names, then saves a good value', async () => {
    const id = await installThroughForm('settings-demo', 'space');
    const limit = page.getByLabel(/^Limit/);
    await limit.fill('ten');
    await page.getByRole('button', { name: 'Save configuration' }).click();
    await page.getByRole('alert').filter({ hasText: 'The host refused these values' }).waitFor();
    const limitField = page.locator('.field', { has: limit });
    await waitForText(page, `#${await limit.getAttribute('id')}-error`, /must be number/);
    expect(await limit.getAttribute('aria-invalid')).toBe('true');
    expect(await limit.getAttribute('aria-describedby')).toContain('-error');
    expect(await limitField.locator('.field-error').count()).toBe(1);
    expect((await host.admin(`/v1/installations/${id}`).then((r) => r.json())).configuration.limit).toBe(10);

    await limit.fill('25');
    await page.getByLabel(/^Channel/).selectOption('releases');
    await page.getByLabel(/^Notify/).check();
    await page.getByRole('button', { name: 'Save configuration' }).click();
    await page.getByText('Saved. The installation is active.').waitFor();
    await waitForText(page, '.status-panel .badge', 'active');
    expect(await page.locator('.field-error').count()).toBe(0);
    const stored = await host.admin(`/v1/installations/${id}`).then((r) => r.json());
    expect(stored).toMatchObject({ status: 'active', configuration: { limit: 25, channel: 'releases', notify: true } });
  });

  it(
    'fills a completion_url dropdown from the integration and ' + 'connects OAuth until the installation is active',
    async () => {
      const id = await installThroughForm('oauth-demo', 'space');
      const channel = page.getByLabel(/^Channel/);
      await page.locator('select[id$="-channel"] option', { hasText: 'Releases' }).waitFor({ state: 'attached' });
      expect(await channel.locator('option').allTextContents()).toEqual(['(not set)', 'General', 'Releases', 'Random']);
      await channel.selectOption('releases');
      await page.getByRole('button', { name: 'Save configuration' }).click();
      await page.getByText('Saved. The installation is pending.').waitFor();
      await waitForText(page, '.status-panel .why', 'Waiting for: Connection (not connected yet).');

      const popup = browser.context.waitForEvent('page');
      await page.getByRole('button', { name: 'Connect to the provider' }).click();
      const flow = await popup;
      await flow.getByText('Connected').first().waitFor();
      await flow.close();

      await waitForText(page, '.connection', 'Connected');
      await waitForText(page, '.status-panel .badge', 'active');
      const stored = (await host.stores.installations.getInstallation(id))!;
      expect(stored.configuration).toEqual({
        channel: 'releases',
        oauth_credentials: { access_token: provider.issuedTokens.at(-1) },
      });
    },
  );

  it('renders the counter and increments it twice, the state round-tripping through the host', async () => {
    const id = await installThroughForm('counter', 'organization');
    await page.getByRole('link', { name: 'Component preview' }).click();
    await page.getByLabel('Component').selectOption('counter');
    await page.getByRole('button', { name: 'Render' }).click();
    const output = page.locator('.ck-root');
    await output.getByText('Count: 0').waitFor();
    await output.getByRole('button', { name: 'Increment' }).click();
    await output.getByText('Count: 1').waitFor();
    // The second time with the keyboard.
    await output.getByRole('button', { name: 'Increment' }).focus();
    await page.keyboard.press('Enter');
    await output.getByText('Count: 2').waitFor();
    expect(JSON.parse((await page.getByLabel('Component state').textContent()) ?? '')).toEqual({ count: 2 });
    const renders = (await host.admin('/v1/integrations/counter/events?limit=10').then((r) => r.json())).items.filter(
      (entry: { type: string; installationId: string }) => entry.type === 'ui_render' && entry.installationId === id,
    );
    expect(renders).toHaveLength(3);
  });

  it('previews a GitBook-format block: an editable code block bound to state feeds its webframe live', async () => {
    await installThroughForm('snippet-preview', 'space');
    await page.getByRole('link', { name: 'Component preview' }).click();
    await page.getByLabel('Component').selectOption('snippet');
    await page.getByRole('button', { name: 'Render' }).click();
    const output = page.locator('.ck-root');
    await output.getByText('0 edit(s) saved').waitFor();
    const code = output.getByRole('textbox', { name: 'code (html)' });
    expect(await code.inputValue()).toBe('<p>Hello <b>world</b></p>');
    expect(await output.locator('iframe').getAttribute('sandbox')).toBe('allow-scripts');
    // Typing changes the state; the webframe is told at once and shows the snippet in its own sandboxed frame.
    await code.fill('<p>Hi <i>console</i></p>');
    const frame = await (await output.locator('iframe').elementHandle())!.contentFrame();
    expect(frame).not.toBeNull();
    await frame!.waitForURL(/\/frame$/);
    await frame!.waitForFunction(
      () => document.getElementById('preview')?.getAttribute('srcdoc') === '<p>Hi <i>console</i></p>',
    );
    // Leaving the code block fires onContentChange: the integration stores the text in the block's props.
    await code.blur();
    await output.getByText('1 edit(s) saved').waitFor();
    expect(JSON.parse((await page.getByLabel('Component state').textContent()) ?? '{}')).toEqual({
      content: '<p>Hi <i>console</i></p>',
      edits: 1,
    });
    // The block's control (Reset) sends its action.
    await output.getByRole('button', { name: 'Reset' }).click();
    await output.getByText('0 edit(s) saved').waitFor();
    expect(await output.getByRole('textbox', { name: 'code (html)' }).inputValue()).toBe('<p>Hello <b>world</b></p>');
  });

  it('shows a new dispatch in the live event log as it happens', async (context) => {
    const probe = await fetch(`${consoleUrl}/v1/integrations/hello/events/stream`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    await probe.body?.cancel();
    if (probe.status === 404) {
      context.skip('the events stream route (GET /v1/integrations/:name/events/stream) is not on this host yet');
      return;
    }
    const created = await host.admin('/v1/integrations/hello/installations', {
      method: 'POST',
      body: JSON.stringify({ organization: 'acme', target: 'organization' }),
    });
    const installation = await created.json();
    await page.goto(`${consoleUrl}/console/events?integration=hello`);
    await page.getByText('Live: new dispatches appear as they happen.').waitFor();
    const response = await fetch(installation.urls.publicEndpoint, { method: 'POST' });
    expect(response.status).toBe(200);
    const requestId = response.headers.get('x-request-id')!;
    const entry = page.locator('li.event.fresh', { hasText: 'fetch' });
    await entry.waitFor();
    await entry.locator('summary').click();
    await entry.getByText(requestId).waitFor();
    await page.getByLabel('Type').selectOption('fetch');
    await page.locator('li.event.fresh').waitFor();
  });

  it('lists installations, filtered by integration, and opens one', async (context) => {
    const probe = await fetch(`${consoleUrl}/v1/installations?limit=1`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    if (probe.status === 404) {
      context.skip('the installations list route (GET /v1/installations) is not on this host yet');
      return;
    }
    const counter = (await (await host.admin('/v1/installations?integration=counter')).json()).items as {
      id: string;
    }[];
    expect(counter.length).toBeGreaterThan(0);
    await page.goto(`${consoleUrl}/console/installations`);
    await page.getByLabel('Integration').selectOption('counter');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/integration=counter/);
    const rows = page.locator('table.list tbody tr');
    // The unfiltered list stays on screen until the filtered page arrives: wait for the new one.
    await waitFor(
      async () =>
        (await rows.count()) === counter.length && (await rows.filter({ hasText: counter[0].id }).count()) === 1,
      15_000,
    );
    expect(await rows.locator('td:nth-child(2)').allTextContents()).toEqual(counter.map(() => 'counter'));
    await page.getByRole('link', { name: counter[0].id }).click();
    await page.getByRole('heading', { level: 1, name: new RegExp(counter[0].id) }).waitFor();
    // The integration page lists its installations too.
    await page.goto(`${consoleUrl}/console/integrations/counter`);
    await page.getByRole('link', { name: counter[0].id }).waitFor();
  });

  it('shows webhook deliveries with every attempt, redelivers one, and shows a rotated secret once', async () => {
    const id = await installThroughForm('host:webhook', 'space');
    const secret = await page.getByLabel('Signing secret').inputValue();
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43,}$/);

    await page.getByLabel(/^Receiver URL/).fill('ftp://127.0.0.1/hooks');
    await page.getByRole('checkbox', { name: 'space_content_updated' }).check();
    await page.getByRole('button', { name: 'Save configuration' }).click();
    await waitForText(page, '#webhook-url-error', /./);
    await page.getByLabel(/^Receiver URL/).fill(`${receiver.url}/hooks`);
    await page.getByRole('button', { name: 'Save configuration' }).click();
    await page.getByText('Saved. The installation is active.').waitFor();

    const published = await host.admin('/v1/events', {
      method: 'POST',
      body: JSON.stringify({ type: 'space_content_updated', spaceId: 'space_acme_docs', revisionId: 'r-console' }),
    });
    expect(published.status).toBe(202);
    await page.getByRole('link', { name: 'Deliveries' }).click();
    const deliveries = page.locator('li.delivery');
    await deliveries.first().locator('td', { hasText: 'HTTP 200' }).waitFor();
    expect(await deliveries.count()).toBe(1);

    const hitsBefore = receiver.hits.length;
    await deliveries
      .first()
      .getByRole('button', { name: /Redeliver/ })
      .click();
    await page.getByText(/^Queued dlv_/).waitFor();
    await page.locator('li.delivery', { hasText: 'a redelivery of' }).locator('td', { hasText: 'HTTP 200' }).waitFor();
    expect(await deliveries.count()).toBe(2);
    expect(receiver.hits.length).toBe(hitsBefore + 1);

    // Leaving the page forgets the secret shown at installation.
    await page.getByRole('link', { name: 'Configuration' }).click();
    await page.getByLabel(/^Receiver URL/).waitFor();
    expect(await page.getByLabel('Signing secret').count()).toBe(0);
    await page.getByRole('link', { name: 'Deliveries' }).click();
    await page.getByRole('button', { name: 'Rotate the signing secret…' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Rotate' }).click();
    const rotated = await page.getByLabel('New signing secret').inputValue();
    expect(rotated).toMatch(/^[A-Za-z0-9_-]{43,}$/);
    expect(rotated).not.toBe(secret);
    expect(JSON.stringify(await host.admin(`/v1/installations/${id}`).then((r) => r.json()))).not.toContain(rotated);
  });

  it('uninstalls only after confirmation', async () => {
    const id = await installThroughForm('hello', 'organization');
    await page.getByRole('button', { name: 'Uninstall…' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect((await host.admin(`/v1/installations/${id}`)).status).toBe(200);
    await page.getByRole('button', { name: 'Uninstall…' }).click();
    await dialog.getByRole('button', { name: 'Uninstall', exact: true }).click();
    await page.waitForURL(/\/console\/integrations\/hello$/);
    expect((await host.admin(`/v1/installations/${id}`)).status).toBe(404);
  });

  it('labels every control and shows where the keyboard focus is, on every main page', async () => {
    const installation = await (
      await host.admin('/v1/integrations/oauth-demo/installations', {
        method: 'POST',
        body: JSON.stringify({ organization: 'acme', target: 'space', space: 'space_acme_docs' }),
      })
    ).json();
    const pages = [
      '/console/integrations',
      '/console/integrations/oauth-demo',
      `/console/installations/${installation.id}`,
      `/console/installations/${installation.id}/preview`,
      '/console/events?integration=counter',
      '/console/installations',
    ];
    for (const path of pages) {
      await page.goto(`${consoleUrl}${path}`);
      await page.locator('main h1').waitFor();
      await page.waitForFunction(
        () => ![...document.querySelectorAll('[role="status"]')].some((node) => /Loading/.test(node.textContent ?? '')),
      );
      const unlabeled = await page.evaluate(() =>
        [...document.querySelectorAll('input, select, textarea, button')]
          .filter((element) => {
            const control = element as HTMLInputElement;
            if (control.type === 'hidden') return false;
            const named =
              (control.labels?.length ?? 0) > 0 ||
              control.getAttribute('aria-label') ||
              control.getAttribute('aria-labelledby');
            return !named && (element.tagName !== 'BUTTON' || (element.textContent ?? '').trim() === '');
          })
          .map((element) => element.outerHTML.slice(0, 120)),
      );
      expect(unlabeled, path).toEqual([]);
      // Tab to the first control after the skip link: it has a visible focus indicator.
      await page.keyboard.press('Tab');
      await page.keyboard.press('Tab');
      const focus = await page.evaluate(() => {
        const active = document.activeElement as HTMLElement | null;
        const style = active ? getComputedStyle(active) : null;
        return {
          tag: active?.tagName ?? '',
          outline: style?.outlineStyle ?? 'none',
          width: style?.outlineWidth ?? '0px',
        };
      });
      expect(focus.tag, path).not.toBe('BODY');
      expect(focus.outline, path).not.toBe('none');
      expect(focus.width, path).not.toBe('0px');
    }
  });

  it('shows the host’s error when a page asks for something that does not exist', async () => {
    await page.goto(`${consoleUrl}/console/installations/inst_does_not_exist`);
    const alert = page.getByRole('alert');
    await alert.filter({ hasText: 'Not found' }).waitFor();
    expect(await alert.textContent()).toMatch(/ERR_INSTALLATION_NOT_FOUND/);
  });

  it('signs out: the session ends and the next request needs the token again', async () => {
    await page.goto(`${consoleUrl}/console/integrations`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to the integration host' }).waitFor();
    expect(await browser.context.cookies(consoleUrl)).toEqual([]);
    await page.goto(`${consoleUrl}/console/integrations`);
    await page.getByLabel('Admin token').waitFor();
  });
});

// The console's secrets page in Chromium against a real host: from the integration page to its
// secrets, the missing variable offered for storing, a refused name shown by its field, a value
// stored (the integration becomes ready and its next request sees it) and cleared from the form,
// never present in the page's HTML afterwards, then removed after a confirmation; a built-in's
// page offers none.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startTestHost, type TestHost } from '../helpers/host.ts';
import { chromiumMissing, launchBrowser, signIn, type TestBrowser } from '../helpers/browser.ts';

const VALUE = 'typed-in-the-console-8e21';
let host: TestHost;
let browser: TestBrowser;
let page: Page;

describe.skipIf(chromiumMissing !== null)('the secrets page of the console', () => {
  beforeAll(async () => {
    host = await startTestHost({
      dirs: ['test/fixtures/secret-echo'],
      consolePort: 0,
      env: { ...process.env, HOST_SECRETS_KEYS: `1:${Buffer.alloc(32, 5).toString('base64')}`, SECRET_ECHO_OWN: 'own' },
    });
    browser = await launchBrowser();
    page = browser.page;
    await signIn(page, host.consoleUrl!);
  });
  afterAll(async () => {
    await browser?.close();
    await host?.close();
  });

  it('is reached from the integration page and says what the manifest reads and from where', async () => {
    await page.goto(`${host.consoleUrl}/console/integrations/secret-echo`);
    await page.getByRole('link', { name: 'Manage the secrets of secret-echo' }).click();
    await page.getByRole('heading', { level: 1, name: /Secrets of secret-echo/ }).waitFor();
    const reads = page.locator('table', { has: page.getByRole('columnheader', { name: 'Value from' }) });
    const own = reads.getByRole('row', { name: /OWN SECRET_ECHO_OWN the host’s environment/ });
    await expect(own.count()).resolves.toBe(1);
    await reads
      .getByRole('row', { name: /VENDOR VENDOR_CLIENT_ID missing/ })
      .getByText('npm run secrets -- set secret-echo VENDOR_CLIENT_ID')
      .waitFor();
    await page.getByText('Nothing stored for secret-echo yet.').waitFor();
  });

  it('shows a refused name by its field', async () => {
    await page.getByLabel('Name').fill('not-a-variable');
    await page.getByLabel('Value', { exact: true }).fill('x');
    await page.getByRole('button', { name: 'Store', exact: true }).click();
    await page.locator('#secret-name-error').filter({ hasText: 'must be the variable' }).waitFor();
    expect(await page.getByLabel('Name').getAttribute('aria-invalid')).toBe('true');
  });

  it('stores a value typed in the form: the integration serves it, the page never holds it again', async () => {
    await page.getByRole('button', { name: 'Store VENDOR_CLIENT_ID' }).click();
    expect(await page.getByLabel('Name').inputValue()).toBe('VENDOR_CLIENT_ID');
    const value = page.getByLabel('Value', { exact: true });
    expect(await value.getAttribute('type')).toBe('password');
    await value.fill(VALUE);
    await page.getByRole('button', { name: 'Store', exact: true }).click();
    await page
      .getByRole('status')
      .filter({ hasText: 'Stored VENDOR_CLIENT_ID (key 1). secret-echo is ready' })
      .waitFor();
    expect(await value.inputValue()).toBe('');
    const stored = page.locator('table', { has: page.getByRole('columnheader', { name: 'Used by' }) });
    await stored.getByRole('row', { name: /VENDOR_CLIENT_ID .* console 1 VENDOR/ }).waitFor();
    expect(await page.content()).not.toContain(VALUE);
    const endpoint = host.devInstallations.find((dev) => dev.integration === 'secret-echo')!.installation!.urls
      .publicEndpoint;
    expect(((await (await fetch(endpoint)).json()) as { secrets: Record<string, string> }).secrets.VENDOR).toBe(VALUE);
    const listed = await (await host.admin('/v1/integrations/secret-echo/secrets')).json();
    expect(listed.items[0]).toMatchObject({ name: 'VENDOR_CLIENT_ID', setBy: 'console' });
    expect(host.logs.join('\n')).not.toContain(VALUE);
  });

  it('removes a stored value after a confirmation', async () => {
    const row = page.getByRole('row', { name: /VENDOR_CLIENT_ID .* console/ });
    await row.getByRole('button', { name: 'Remove' }).click();
    const dialog = page.getByRole('dialog').filter({ hasText: 'Remove VENDOR_CLIENT_ID?' });
    await dialog.getByRole('button', { name: 'Remove' }).click();
    await page.getByRole('status').filter({ hasText: 'Removed VENDOR_CLIENT_ID.' }).waitFor();
    await page.getByText('Nothing stored for secret-echo yet.').waitFor();
    expect(((await (await host.admin('/v1/integrations/secret-echo')).json()) as { status: string }).status).toBe(
      'invalid',
    );
  });

  it("offers no secrets on a built-in integration's page", async () => {
    await page.goto(`${host.consoleUrl}/console/integrations/${encodeURIComponent('host:webhook')}`);
    await page.getByRole('link', { name: 'Open the event log of host:webhook' }).waitFor();
    expect(await page.getByRole('heading', { name: 'Secrets' }).count()).toBe(0);
    expect(await page.getByRole('link', { name: /Manage the secrets/ }).count()).toBe(0);
  });
});

// The console's versions list in Chromium against a real host: a published integration's page
// lists its versions (number, content hash, publisher, current), and rolling back to an earlier
// one after a confirmation makes it current and served; an integration from a folder lists none.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { integrationFiles, tarGz } from '../helpers/archives.ts';
import { chromiumMissing, launchBrowser, signIn, type TestBrowser } from '../helpers/browser.ts';
import { startTestHost, type TestHost } from '../helpers/host.ts';
import { issueToken, uploadTo } from '../helpers/publishing.ts';

let host: TestHost;
let browser: TestBrowser;
let page: Page;
let publisher = '';

describe.skipIf(chromiumMissing !== null)('the versions list of the console', () => {
  beforeAll(async () => {
    host = await startTestHost({ dirs: ['test/fixtures/env-echo'], consolePort: 0, workers: 1 });
    const { id, token } = await issueToken(host, 'acme');
    publisher = id;
    for (const greeting of ['one', 'two'])
      expect(
        (await uploadTo(host, 'greeter', token, new Uint8Array(tarGz(integrationFiles('greeter', 'acme', greeting)))))
          .status,
      ).toBe(201);
    browser = await launchBrowser();
    page = browser.page;
    await signIn(page, host.consoleUrl!);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await host?.close();
  });

  it('lists each version with its hash, publisher and which is current', async () => {
    await page.goto(`${host.consoleUrl}/console/integrations/greeter`);
    await page.getByRole('heading', { level: 2, name: 'Versions' }).waitFor();
    const stored = await host.stores.versions.list('greeter');
    await page
      .getByRole('row', { name: new RegExp(`^2 current ${stored[0].contentHash.slice(0, 12)} publisher:${publisher}`) })
      .waitFor();
    await page
      .getByRole('row', { name: new RegExp(`^1 ${stored[1].contentHash.slice(0, 12)} publisher:${publisher}`) })
      .waitFor();
    const rows = page.locator('table.versions tbody tr');
    await expect(rows.count()).resolves.toBe(2);
    await page.getByText('published version 2, by').waitFor();
  });

  it('rolls back to an earlier version after a confirmation', async () => {
    await page.getByRole('button', { name: 'Roll back to 1' }).click();
    const dialog = page.getByRole('dialog').filter({ hasText: 'Serve version 1 of greeter?' });
    await dialog.getByRole('button', { name: 'Serve version 1' }).click();
    await page.getByRole('status').filter({ hasText: 'Version 1 is current' }).waitFor();
    await page.getByRole('row', { name: /^1 current/ }).waitFor();
    expect(host.integrations.find((entry) => entry.name === 'greeter')?.published?.version).toBe(1);
    expect((await host.stores.versions.list('greeter')).find((entry) => entry.current)?.version).toBe(1);
  });

  it('shows no versions for an integration loaded from a folder', async () => {
    await page.goto(`${host.consoleUrl}/console/integrations/env-echo`);
    await page.getByText('a folder on this host').waitFor();
    await expect(page.getByRole('heading', { level: 2, name: 'Versions' }).count()).resolves.toBe(0);
  });
});

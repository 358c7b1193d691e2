// `npm run screenshots`: boots a host with the fixtures (the loopback OAuth provider and a webhook
// receiver beside it), walks the console in Chromium the way a person would, and writes a PNG of
// each main page into docs/images/. Not part of `npm test`; needs /usr/bin/chromium.
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { createHost } from '../../host/index.ts';
import { createMemoryLogger } from '../../host/common/logger.ts';
import { startOAuthProvider } from '../../fixtures/oauth-provider/provider.ts';
import { startReceiver } from '../helpers/receivers.ts';
import { chromiumMissing, launchBrowser, signIn, waitForText } from '../helpers/browser.ts';

const OUT = fileURLToPath(new URL('../../docs/images/', import.meta.url));
const TOKEN = 'screenshots-admin-token-0123';

if (chromiumMissing !== null) {
  process.stderr.write(`${chromiumMissing}\n`);
  process.exit(1);
}
mkdirSync(OUT, { recursive: true });

const provider = await startOAuthProvider({ clientId: 'screens-client', clientSecret: 'screens-secret' });
const receiver = await startReceiver('{"received":true}');
const host = await createHost({
  port: 0,
  consolePort: 0,
  dataPath: ':memory:',
  workers: 2,
  adminToken: TOKEN,
  logger: createMemoryLogger(),
  dirs: ['fixtures/integrations', 'fixtures/integrations-bad-duplicates'],
  allowEgress: ['127.0.0.1'],
  env: {
    ...process.env,
    OAUTH_DEMO_CLIENT_ID: 'screens-client',
    OAUTH_DEMO_CLIENT_SECRET: 'screens-secret',
    OAUTH_DEMO_AUTHORIZE_URL: provider.authorizeURL,
    OAUTH_DEMO_TOKEN_URL: provider.tokenURL,
  },
});
const consoleUrl = host.consoleUrl!;
const browser = await launchBrowser();
const page = browser.page;

async function shot(name: string, target: Page = page): Promise<void> {
  // Let fonts and layout settle on the condition that nothing is loading any more.
  await target.waitForFunction(
    () =>
      document.querySelectorAll('[role="status"]').length === 0 ||
      ![...document.querySelectorAll('[role="status"]')].some((node) => /Loading/.test(node.textContent ?? '')),
  );
  await target.screenshot({ path: `${OUT}${name}.png`, fullPage: true });
  process.stdout.write(`docs/images/${name}.png\n`);
}

async function install(
  integration: string,
  target: 'organization' | 'space',
  space = 'space_acme_docs',
): Promise<string> {
  await page.goto(`${consoleUrl}/console/integrations/${integration}`);
  const form = page.locator('form', { has: page.getByRole('button', { name: 'Install' }) });
  await form.getByLabel('Organization', { exact: true }).fill('acme');
  await form.getByRole('radio', { name: target === 'organization' ? 'The whole organization' : 'A space' }).check();
  if (target === 'space') await form.getByLabel('Space id').fill(space);
  await form.getByRole('button', { name: 'Install' }).click();
  await page.waitForURL(/\/console\/installations\/inst_[\w-]+$/);
  return page.url().split('/').at(-1)!;
}

try {
  await page.goto(`${consoleUrl}/console`);
  await page.getByLabel('Admin token').waitFor();
  await shot('console-sign-in');
  await signIn(page, consoleUrl, TOKEN);
  await page.locator('.problems-compact summary').first().click();
  await shot('console-integrations');

  await page.goto(`${consoleUrl}/console/integrations/oauth-demo`);
  await page.getByRole('heading', { name: 'Install OAuth demo' }).waitFor();
  await shot('console-integration');

  // Configuration: a refused value by its field, then a completion and the OAuth connection.
  const webhook = await install('host:webhook', 'space');
  await page.getByLabel(/^Receiver URL/).fill('http://10.0.0.1/hooks');
  await page.getByRole('checkbox', { name: 'space_content_updated' }).check();
  await page.getByRole('button', { name: 'Save configuration' }).click();
  await waitForText(page, '#webhook-url-error', /./);
  await shot('console-configuration-422');
  await page.getByLabel(/^Receiver URL/).fill(`${receiver.url}/hooks`);
  await page.getByRole('button', { name: 'Save configuration' }).click();
  await page.getByText('Saved. The installation is active.').waitFor();

  await install('oauth-demo', 'space');
  await page.locator('select[id$="-channel"] option', { hasText: 'Releases' }).waitFor({ state: 'attached' });
  await page.getByLabel(/^Channel/).selectOption('releases');
  await page.getByRole('button', { name: 'Save configuration' }).click();
  await page.getByText('Saved. The installation is pending.').waitFor();
  const popup = browser.context.waitForEvent('page');
  await page.getByRole('button', { name: 'Connect to the provider' }).click();
  const flow = await popup;
  await flow.getByText('Connected').first().waitFor();
  await flow.close();
  await waitForText(page, '.status-panel .badge', 'active');
  await shot('console-installation');

  await install('counter', 'organization');
  await page.getByRole('link', { name: 'Component preview' }).click();
  await page.getByRole('button', { name: 'Render' }).click();
  const output = page.locator('.ck-root');
  await output.getByText('Count: 0').waitFor();
  await output.getByRole('button', { name: 'Increment' }).click();
  await output.getByText('Count: 1').waitFor();
  await output.getByRole('button', { name: 'Increment' }).click();
  await output.getByText('Count: 2').waitFor();
  await shot('console-preview');

  // Platform events for the event log and the webhook.
  for (const revisionId of ['r1', 'r2']) {
    await fetch(`${host.url}/v1/events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'space_content_updated', spaceId: 'space_acme_docs', revisionId }),
    });
  }
  await page.goto(`${consoleUrl}/console/events?integration=event-log`);
  await page.locator('li.event').first().waitFor();
  // With the live stream, a dispatch published now appears while the page is open.
  const live = await page
    .getByText('Live: new dispatches appear as they happen.')
    .waitFor({ timeout: 5_000 })
    .then(
      () => true,
      () => false,
    );
  if (live) {
    await fetch(`${host.url}/v1/events`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'space_content_updated', spaceId: 'space_acme_docs', revisionId: 'r3' }),
    });
    await page.locator('li.event.fresh').first().waitFor();
  } else process.stdout.write('(no event stream on this host: the event log screenshot shows no live entry)\n');
  await page.locator('li.event summary').first().click();
  await shot('console-events');

  await page.goto(`${consoleUrl}/console/installations/${webhook}/deliveries`);
  const deliveries = page.locator('li.delivery');
  await deliveries.first().locator('td', { hasText: 'HTTP 200' }).waitFor();
  await deliveries
    .first()
    .getByRole('button', { name: /Redeliver/ })
    .click();
  await page.locator('li.delivery', { hasText: 'a redelivery of' }).locator('td', { hasText: 'HTTP 200' }).waitFor();
  await shot('console-deliveries');

  const list = await fetch(`${consoleUrl}/v1/installations?limit=1`, { headers: { authorization: `Bearer ${TOKEN}` } });
  if (list.status === 200) {
    await page.goto(`${consoleUrl}/console/installations`);
    await page.locator('table.list tbody tr').first().waitFor();
    await shot('console-installations');
  } else
    process.stdout.write(
      `(no installations list on this host: GET /v1/installations answered ${list.status}; ` +
        `console-installations.png not taken)\n`,
    );
} finally {
  await browser.close();
  await host.close();
  await provider.close();
  await receiver.close();
}

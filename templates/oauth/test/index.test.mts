// Starts {{name}} with the development values of .dev.vars and checks the first half of the OAuth
// flow: the Connect button (its URL from the admin view, with the host's connect ticket) redirects
// to the provider with this installation's client id and a signed state, and the installation stays pending until connected. (The whole flow, provider
// included: `npm run provider`, then `npm run dev -- --allow-egress 127.0.0.1:8788`.)
// Run it with `{{testCommand}}` (node's test runner).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startIntegration, type IntegrationHarness } from '{{harness}}';

let integration: IntegrationHarness;
before(async () => {
  integration = await startIntegration(fileURLToPath(new URL('..', import.meta.url)));
});
after(() => integration.close());

test('the installation waits to be connected', async () => {
  const status = await integration.fetch('/status');
  assert.deepEqual(await status.json(), { status: 'pending', connected: false });
});

test('the Connect button redirects to the provider with the client id and a state', async () => {
  // The button's URL, as an admin view shows it: it carries the connect ticket the host checks.
  const view = await (await integration.admin(`/v1/installations/${integration.installationId}`)).json();
  const button: string = view.urls.buttons.oauth_credentials;
  assert.ok(button.startsWith(`${integration.endpoint}/oauth?ticket=`), button);
  const response = await fetch(button, { redirect: 'manual' });
  assert.equal(response.status, 302);
  const location = new URL(response.headers.get('location') ?? '');
  assert.equal(`${location.origin}${location.pathname}`, 'http://127.0.0.1:8788/authorize');
  assert.equal(location.searchParams.get('client_id'), 'oauth-demo-dev-client');
  assert.equal(location.searchParams.get('redirect_uri'), `${integration.endpoint}/oauth`);
  assert.match(location.searchParams.get('state') ?? '', /\S{20,}/);
});

// Starts {{name}} with the development values of .dev.vars and checks the first half of the OAuth
// flow: the Connect button redirects to the provider with this installation's client id and a
// signed state, and the installation stays pending until connected. (The whole flow, provider
// included: `npm run provider`, then `npm run dev -- --allow-egress 127.0.0.1:8788`.)
// Run it with `npm run test:integrations` (node's test runner).
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
  const response = await integration.fetch('/oauth', { redirect: 'manual' });
  assert.equal(response.status, 302);
  const location = new URL(response.headers.get('location') ?? '');
  assert.equal(`${location.origin}${location.pathname}`, 'http://127.0.0.1:8788/authorize');
  assert.equal(location.searchParams.get('client_id'), 'oauth-demo-dev-client');
  assert.equal(location.searchParams.get('redirect_uri'), `${integration.endpoint}/oauth`);
  assert.match(location.searchParams.get('state') ?? '', /\S{20,}/);
});

// Runs {{name}} on a real host (its own port, a throwaway store) and calls its public endpoint.
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

test('GET answers a greeting', async () => {
  const response = await integration.fetch('?name=Ada');
  assert.equal(response.status, 200);
  assert.deepEqual(await response.json(), { message: 'Hello, Ada!' });
});

test('POST echoes its JSON body, and refuses one that is not JSON', async () => {
  const echoed = await integration.fetch('', { method: 'POST', body: JSON.stringify({ n: 1 }) });
  assert.deepEqual(await echoed.json(), { received: { n: 1 } });
  const refused = await integration.fetch('', { method: 'POST', body: 'not json' });
  assert.equal(refused.status, 400);
  assert.deepEqual(await refused.json(), { error: 'send a JSON body' });
});

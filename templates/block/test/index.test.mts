// Renders {{name}}'s block through the host's render route (the output is checked as ContentKit
// there) and presses its button. Run it with `{{testCommand}}` (node's test runner).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startIntegration, type IntegrationHarness } from '{{harness}}';

let integration: IntegrationHarness;
before(async () => {
  integration = await startIntegration(fileURLToPath(new URL('..', import.meta.url)));
});
after(() => integration.close());

async function render(body: Record<string, unknown>) {
  const response = await integration.admin(`/v1/installations/${integration.installationId}/render`, { method: 'POST', body: JSON.stringify({ componentId: '{{name}}', ...body }) });
  assert.equal(response.status, 200, await response.clone().text());
  return response.json();
}

test('renders the block with its initial state', async () => {
  const answer = await render({ props: { label: 'Clicks' } });
  assert.deepEqual(answer.state, { count: 0 });
  assert.equal(answer.element.type, 'block');
  assert.match(JSON.stringify(answer.element), /Clicks: 0/);
});

test('the button increments the count', async () => {
  const answer = await render({ props: {}, state: { count: 41 }, action: { action: 'increment' } });
  assert.deepEqual(answer.state, { count: 42 });
  assert.match(JSON.stringify(answer.element), /Pressed: 42/);
});

// Configures {{name}}'s signing secret through the admin API, then sends it signed, forged and
// repeated webhooks. Run it with `{{testCommand}}` (node's test runner).
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startIntegration, type IntegrationHarness } from '{{harness}}';

const SECRET = 'test-signing-secret';
let integration: IntegrationHarness;

before(async () => {
  integration = await startIntegration(fileURLToPath(new URL('..', import.meta.url)));
});
after(() => integration.close());

function signed(body: string, secret = SECRET): RequestInit {
  const t = Math.floor(Date.now() / 1000);
  const v1 = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
  return { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-platform-signature': `t=${t},v1=${v1}` } };
}

test('waits for its signing secret', async () => {
  const response = await integration.fetch('', signed('{"eventId":"evt_0"}'));
  assert.equal(response.status, 409);
});

test('accepts a signed event once, refuses a forged one', async () => {
  const configured = await integration.admin(`/v1/installations/${integration.installationId}/configuration`, { method: 'PATCH', body: JSON.stringify({ signing_secret: SECRET }) });
  assert.equal(configured.status, 200);
  const body = JSON.stringify({ eventId: 'evt_1', type: 'page_updated' });
  assert.deepEqual(await (await integration.fetch('', signed(body))).json(), { received: true });
  assert.deepEqual(await (await integration.fetch('', signed(body))).json(), { received: true, duplicate: true });
  const forged = await integration.fetch('', signed(body, 'not-the-secret'));
  assert.equal(forged.status, 401);
  assert.deepEqual(await forged.json(), { error: 'invalid signature: signature_mismatch' });
});

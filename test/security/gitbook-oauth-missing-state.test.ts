// A provider callback without a state. GitBook's runtime answers one with a 500; a hand-written
// flow that sends no state (hand-rolled) would store any code it is given, so anyone could connect
// its installation to their own account. The host seals every flow, a stateless one included (it
// adds its own state and takes it off again), so a callback without a state is refused before the
// integration runs, on the installation's endpoint, the integration's, and in a form_post.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBrowserClient } from '../helpers/browser-client.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';
import {
  buttonOf,
  configurationOf,
  expectRefused,
  startSealedOAuthWorld,
  throughProvider,
  type SealedOAuthWorld,
} from '../helpers/sealed-oauth.ts';

let world: SealedOAuthWorld;

beforeAll(async () => {
  world = await startSealedOAuthWorld();
});
afterAll(() => world?.close());

describe('an OAuth callback without a state', () => {
  it("is refused before a stateless hand-written flow stores the attacker's code", async () => {
    const attacker = createBrowserClient();
    // A real code for the attacker's account, from a flow the attacker started on the provider directly.
    const authorize = new URL(world.provider.authorizeURL);
    authorize.search = new URLSearchParams({
      client_id: 'sealed-client',
      response_type: 'code',
      redirect_uri: `${world.host.url}/v1/integrations/hand-rolled/installations/${world.handRolled}/callback`,
    }).toString();
    const callback = new URL((await attacker.fetch(authorize.toString())).headers.get('location')!);
    expect(callback.searchParams.has('state')).toBe(false);
    await expectRefused(
      world.host,
      'hand-rolled',
      await attacker.fetch(callback.toString()),
      400,
      'ERR_OAUTH_STATE_INVALID',
      /carries no state/,
    );
    expect(await configurationOf(world.host, world.handRolled)).toEqual({});
  });

  it("is refused on the integration's endpoint and in a form_post", async () => {
    const attacker = createBrowserClient();
    await expectRefused(
      world.host,
      'space-digest',
      await attacker.fetch(`${world.host.url}/v1/integrations/space-digest/integration/oauth/shared?code=stolen`),
      400,
      'ERR_OAUTH_STATE_INVALID',
      /carries no state/,
    );
    const form = await attacker.fetch(`${world.host.url}/v1/integrations/hand-rolled/integration/callback-form`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'code=stolen',
    });
    await expectRefused(world.host, 'hand-rolled', form, 400, 'ERR_OAUTH_STATE_INVALID', /carries no state/);
  });

  it("does not stop the stateless flow from its button: the host's state comes and goes (control)", async () => {
    const browser = createBrowserClient();
    const callback = await throughProvider(browser, await buttonOf(world.host, world.handRolled));
    expect(callback.searchParams.get('state')).toMatch(/^[\w-]{22}\.[\w-]{43}$/);
    expect((await browser.fetch(callback.toString())).status).toBe(200);
    // The integration saw no state at all, as it sent none.
    expect(await configurationOf(world.host, world.handRolled)).toEqual({
      oauth_credentials: { access_token: world.provider.issuedTokens.at(-1) },
      seen_state: '(none)',
    });
  });

  it('leaves the host answering', async () => {
    await expectHostHealthy(world.host);
  });
});

// Login CSRF against a GitBook-runtime flow: a sealed state is bound to the browser that opened the
// installation's button (an HttpOnly cookie, compared in constant time as a hash). A callback
// opened in any other browser is refused before the integration runs, and without spending the
// state: the attacker luring a victim's browser into the attacker's callback, and an attacker who
// got hold of a victim's callback URL (its code and state), both fail; the browser that started
// the flow still finishes it afterwards.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBrowserClient } from '../helpers/browser-client.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';
import { install } from '../helpers/platform-api.ts';
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

describe('a GitBook-runtime OAuth callback opened in another browser', () => {
  it("is refused when the attacker's callback is opened in the victim's browser, on either endpoint", async () => {
    const attacker = createBrowserClient();
    const victim = createBrowserClient();
    const own = (await install(world.host, 'space-digest', { organization: 'globex', target: 'organization' })).id;
    const button = new URL(await buttonOf(world.host, own));
    for (const path of ['/oauth', '/oauth/shared']) {
      const callback = await throughProvider(
        attacker,
        `${button.origin}${button.pathname.replace(/\/oauth$/, path)}${button.search}`,
      );
      await expectRefused(
        world.host,
        'space-digest',
        await victim.fetch(callback.toString()),
        400,
        'ERR_OAUTH_STATE_INVALID',
        /issued to another browser/,
      );
    }
    expect(await configurationOf(world.host, own)).toEqual({});
  });

  it("is refused when an attacker replays a victim's callback, which the victim then still finishes", async () => {
    const victim = createBrowserClient();
    const attacker = createBrowserClient();
    const callback = await throughProvider(victim, await buttonOf(world.host, world.handRolled));
    // The attacker also forges a binding cookie of the right name.
    const nonce = callback.searchParams.get('state')!.split('.')[0];
    const forged = await attacker.fetch(callback.toString(), {
      headers: { cookie: `ih-oauth.${nonce}=${'A'.repeat(43)}` },
    });
    await expectRefused(world.host, 'hand-rolled', forged, 400, 'ERR_OAUTH_STATE_INVALID', /issued to another browser/);
    await expectRefused(
      world.host,
      'hand-rolled',
      await attacker.fetch(callback.toString()),
      400,
      'ERR_OAUTH_STATE_INVALID',
      /issued to another browser/,
    );
    expect(await configurationOf(world.host, world.handRolled)).toEqual({});

    expect((await victim.fetch(callback.toString())).status).toBe(200);
    expect((await configurationOf(world.host, world.handRolled)).oauth_credentials).toEqual({
      access_token: world.provider.issuedTokens.at(-1),
    });
  });

  it('leaves the host answering', async () => {
    await expectHostHealthy(world.host);
  });
});

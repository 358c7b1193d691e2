// A GitBook-runtime callback that comes back too late: a sealed state lives 10 minutes (the
// oauthStateTtlMs option), measured on the host's clock. Past that it is refused before the
// integration runs and its binding cookie is cleared; until then it connects, and a new flow from a
// fresh view of the installation works.
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
let now = Date.parse('2026-06-01T12:00:00Z');

beforeAll(async () => {
  world = await startSealedOAuthWorld({ clock: () => now });
});
afterAll(() => world?.close());

describe('an expired GitBook-runtime OAuth state', () => {
  it('is refused past 10 minutes, before the integration runs, and its cookie cleared', async () => {
    const browser = createBrowserClient();
    const callback = await throughProvider(browser, await buttonOf(world.host, world.digest));
    expect(browser.cookies()).toHaveLength(1);
    now += 10 * 60 * 1000;
    const answer = await browser.fetch(callback.toString());
    expect(answer.headers.getSetCookie()).toEqual([
      expect.stringMatching(/^ih-oauth\.[\w-]{22}=; Path=\/v1\/integrations\/space-digest\/; Max-Age=0;/),
    ]);
    await expectRefused(world.host, 'space-digest', answer, 400, 'ERR_OAUTH_STATE_INVALID', /has expired/);
    expect(browser.cookies()).toEqual([]);
    expect(await configurationOf(world.host, world.digest)).toEqual({});
  });

  it('connects just before it expires, and from a fresh view after', async () => {
    const browser = createBrowserClient();
    const late = await throughProvider(browser, await buttonOf(world.host, world.digest));
    now += 10 * 60 * 1000 - 1;
    expect((await browser.fetch(late.toString())).status).toBe(200);
    now += 60 * 60 * 1000;
    const fresh = await throughProvider(browser, await buttonOf(world.host, world.digest));
    expect((await browser.fetch(fresh.toString())).status).toBe(200);
    expect((await configurationOf(world.host, world.digest)).oauth_credentials).toMatchObject({
      access_token: world.provider.issuedTokens.at(-1),
    });
  });

  it('leaves the host answering', async () => {
    await expectHostHealthy(world.host);
  });
});

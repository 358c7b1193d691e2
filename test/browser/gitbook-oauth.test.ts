// A sealed GitBook-runtime OAuth flow in real browsers (Debian's Chromium), the provider's page on
// another site (`oauth-provider.test`, resolved to loopback by the browser) than the host
// (`127.0.0.1`), as a real provider is: the binding cookie must come back with a cross-site
// top-level navigation. One browser connects space-digest from its button URL; a second browser
// opening the first one's callback is refused with the host's page, and the first still finishes;
// a replayed or forged state is refused; a form_post (a cross-site POST) on this http host loses
// the SameSite=Lax cookie and is refused (security.md: form_post needs an https host).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumMissing, launchBrowser, type TestBrowser } from '../helpers/browser.ts';
import {
  buttonOf,
  configurationOf,
  startSealedOAuthWorld,
  ticketOf,
  type SealedOAuthWorld,
} from '../helpers/sealed-oauth.ts';

const PROVIDER_NAME = 'oauth-provider.test';
const SEALED_STATE = /^[\w-]{22}\.[\w-]{43}$/;

let world: SealedOAuthWorld;
const browsers: TestBrowser[] = [];

/** The binding cookies a browser holds for the host, as they would be sent to `url`. */
async function bindingCookies(browser: TestBrowser, url: string) {
  return (await browser.context.cookies(url)).filter((cookie) => cookie.name.startsWith('ih-oauth.'));
}

/** The host's refusal page, as a browser shows it. */
async function refusalOf(
  browser: TestBrowser,
): Promise<{ heading: string | null; reason: string | null; code: string | null }> {
  return {
    heading: await browser.page.locator('h1').textContent(),
    reason: await browser.page.locator('p').first().textContent(),
    code: await browser.page.locator('code').textContent(),
  };
}

describe.skipIf(chromiumMissing !== null)('a sealed GitBook-runtime OAuth flow in Chromium', () => {
  beforeAll(async () => {
    world = await startSealedOAuthWorld({}, PROVIDER_NAME);
    browsers.push(
      await launchBrowser({ loopbackNames: [PROVIDER_NAME] }),
      await launchBrowser({ loopbackNames: [PROVIDER_NAME] }),
    );
  });
  afterAll(async () => {
    for (const browser of browsers) await browser.close();
    await world?.close();
  });

  it(
    'connects from the button in the browser that opened it, ' + 'and refuses the same callback in another browser',
    async () => {
      const [mine, other] = browsers;
      // The provider shows a consent page: the first browser waits there while its callback URL is handed to the other.
      world.provider.consentPage = true;
      await mine.page.goto(await buttonOf(world.host, world.digest));
      expect(new URL(mine.page.url()).host).toBe(`${PROVIDER_NAME}:${new URL(world.provider.url).port}`);
      const callback = (await mine.page.locator('#allow').getAttribute('href'))!;
      const state = new URL(callback).searchParams.get('state')!;
      expect(`${new URL(callback).origin}${new URL(callback).pathname}`).toBe(
        `${world.host.url}/v1/integrations/space-digest/installations/${world.digest}/oauth`,
      );
      expect(state).toMatch(SEALED_STATE);
      // What reached the provider is the host's state, not the runtime's unsigned `{ installationId }`.
      expect(new URLSearchParams(world.provider.authorizeRequests.at(-1)!.split('?')[1]).get('state')).toBe(state);
      expect(
        (await bindingCookies(mine, callback)).map(({ name, httpOnly, sameSite, path }) => ({
          name,
          httpOnly,
          sameSite,
          path,
        })),
      ).toEqual([
        {
          name: `ih-oauth.${state.split('.')[0]}`,
          httpOnly: true,
          sameSite: 'Lax',
          path: '/v1/integrations/space-digest/',
        },
      ]);

      const refused = await other.page.goto(callback);
      expect(refused?.status()).toBe(400);
      expect(await refusalOf(other)).toEqual({
        heading: 'Connection refused',
        reason: expect.stringMatching(/issued to another browser/),
        code: 'ERR_OAUTH_STATE_INVALID',
      });
      expect(await configurationOf(world.host, world.digest)).toEqual({});

      // "Allow": a cross-site top-level navigation back to the host, which carries the Lax cookie.
      const [done] = await Promise.all([mine.page.waitForNavigation(), mine.page.locator('#allow').click()]);
      expect(done?.status()).toBe(200);
      expect(await mine.page.content()).toContain('You can close this window now.');
      expect((await configurationOf(world.host, world.digest)).oauth_credentials).toMatchObject({
        access_token: world.provider.issuedTokens.at(-1),
      });
      expect(await bindingCookies(mine, callback)).toEqual([]);
    },
  );

  it('refuses a replayed callback and a forged state in the browser that started the flow', async () => {
    const [mine] = browsers;
    world.provider.consentPage = true;
    await mine.page.goto(await buttonOf(world.host, world.digest));
    const callback = new URL((await mine.page.locator('#allow').getAttribute('href'))!);
    const [nonce, signature] = callback.searchParams.get('state')!.split('.');

    // A state of the host's shape whose signature the host did not make: refused, the genuine one still good.
    const forged = new URL(callback);
    forged.searchParams.set('state', `${nonce}.${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`);
    expect((await mine.page.goto(forged.toString()))?.status()).toBe(400);
    expect((await refusalOf(mine)).reason).toMatch(/signature does not match/);

    const tokens = world.provider.issuedTokens.length;
    expect((await mine.page.goto(callback.toString()))?.status()).toBe(200);
    expect(world.provider.issuedTokens).toHaveLength(tokens + 1);
    expect((await configurationOf(world.host, world.digest)).oauth_credentials).toMatchObject({
      access_token: world.provider.issuedTokens.at(-1),
    });

    // The same callback again, even in the same browser: spent.
    expect((await mine.page.goto(callback.toString()))?.status()).toBe(400);
    expect((await refusalOf(mine)).reason).toMatch(/already used/);
    // The integration never ran for it: the provider was not asked for another token.
    expect(world.provider.issuedTokens).toHaveLength(tokens + 1);
  });

  it('refuses a cross-site form_post on an http host: the Lax cookie does not come with it', async () => {
    const [mine] = browsers;
    world.provider.consentPage = false;
    const answer = mine.page.waitForResponse((response) => response.url().endsWith('/integration/callback-form'));
    const ticket = await ticketOf(world.host, world.handRolled);
    await mine.page.goto(
      `${world.host.url}/v1/integrations/hand-rolled/installations/${world.handRolled}/start-form?ticket=${ticket}`,
    );
    const posted = await answer;
    expect(posted.status()).toBe(400);
    expect(await posted.text()).toMatch(/issued to another browser/);
    expect(await configurationOf(world.host, world.handRolled)).toEqual({});
  });
});

// The genuine GitBook-format OAuth flows the host seals, through the real host and the loopback
// provider, in the patterns GitBook's integrations use (docs/gitbook.md, "OAuth"): a connect
// button drawn by the integration's own configuration component on a space installation (github's),
// a form_post callback on the integration's endpoint whose own unsigned state must come back
// intact, a provider error that sends the browser to the provider again, visitor authentication
// (left alone), and one flow started on one host of two sharing PostgreSQL and redeemed on the
// other (once across both).
// The manifest button on an installation's endpoint and the integration's one redirect URI:
// gitbook-runtime.test.ts; every refusal: test/security/gitbook-oauth-*.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBrowserClient } from '../helpers/browser-client.ts';
import { installationOf, startTestHost, type TestHost } from '../helpers/host.ts';
import { install } from '../helpers/platform-api.ts';
import { postgresUnavailable, startPostgres, type TestPostgres } from '../helpers/postgres.ts';
import {
  buttonOf,
  configurationOf,
  OAUTH_CLIENT,
  startSealedOAuthWorld,
  throughProvider,
  ticketOf,
  type SealedOAuthWorld,
} from '../helpers/sealed-oauth.ts';

let world: SealedOAuthWorld;

beforeAll(async () => {
  world = await startSealedOAuthWorld();
});
afterAll(() => world?.close());

describe('sealed GitBook-format OAuth flows that connect', () => {
  it("start from a button the integration's configuration component draws, on a space installation", async () => {
    const space = await install(world.host, 'hand-rolled', {
      organization: 'acme',
      target: 'space',
      space: 'space_acme_docs',
    });
    const rendered = await (
      await world.host.admin(`/v1/installations/${space.id}/render`, {
        method: 'POST',
        body: JSON.stringify({ componentId: 'connect-space' }),
      })
    ).json();
    const opens = new URL(rendered.element.children[0].onPress.url);
    expect(`${opens.origin}${opens.pathname}`).toBe(`${space.urls.publicEndpoint}/start`);
    expect(opens.searchParams.get('ticket')).toBeTruthy();

    const browser = createBrowserClient();
    const callback = await throughProvider(browser, opens.toString());
    expect(`${callback.origin}${callback.pathname}`).toBe(`${space.urls.publicEndpoint}/callback`);
    // What the provider received is the integration's Location with the state added, every other byte as written.
    const sent = world.provider.authorizeRequests.at(-1)!;
    const redirectUri = encodeURIComponent(`${space.urls.publicEndpoint}/callback`);
    expect(sent).toBe(
      `/authorize?client_id=${OAUTH_CLIENT.clientId}&response_type=code&redirect_uri=${redirectUri}` +
        `&scope=read%20write&state=${callback.searchParams.get('state')}`,
    );
    expect((await browser.fetch(callback.toString())).status).toBe(200);
    expect(await configurationOf(world.host, world.handRolled)).toEqual({
      oauth_credentials: { access_token: world.provider.issuedTokens.at(-1) },
      seen_state: '(none)',
    });
  });

  it(
    "come back as a form_post to the integration's endpoint " + "with the integration's own state in the body",
    async () => {
      const browser = createBrowserClient();
      const ticket = await ticketOf(world.host, world.handRolled);
      const started = await browser.fetch(
        `${world.host.url}/v1/integrations/hand-rolled/installations/${world.handRolled}/start-form?ticket=${ticket}`,
      );
      expect(started.status).toBe(302);
      const page = await (await browser.fetch(started.headers.get('location')!)).text();
      const field = (name: string) =>
        /name="([^"]+)" value="([^"]*)"/g.exec(page.slice(page.indexOf(`name="${name}"`)))![2];
      const action = /action="([^"]+)"/.exec(page)![1];
      expect(action).toBe(`${world.host.url}/v1/integrations/hand-rolled/integration/callback-form`);
      expect(field('state')).toMatch(/^[\w-]{22}\.[\w-]{43}$/);
      const answer = await browser.fetch(action, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ code: field('code'), state: field('state') }).toString(),
      });
      expect(answer.status).toBe(200);
      expect(await configurationOf(world.host, world.handRolled)).toEqual({
        oauth_credentials: { access_token: world.provider.issuedTokens.at(-1) },
        seen_state: `inst:${world.handRolled}`,
      });
      expect(browser.cookies()).toEqual([]);
    },
  );

  it('send the browser to the provider again after a provider error, sealed anew for the same browser', async () => {
    const browser = createBrowserClient();
    const first = await browser.fetch(await buttonOf(world.host, world.digest));
    const state = new URL(first.headers.get('location')!).searchParams.get('state')!;
    // The provider refused; GitBook's runtime, finding no code, starts over.
    const installation = `${world.host.url}/v1/integrations/space-digest/installations/${world.digest}`;
    const again = await browser.fetch(`${installation}/oauth?error=access_denied&state=${state}`);
    expect(again.status).toBe(302);
    const renewed = new URL(again.headers.get('location')!).searchParams.get('state')!;
    expect(renewed).not.toBe(state);
    expect(browser.cookies().map((cookie) => cookie.name)).toEqual([`ih-oauth.${renewed.split('.')[0]}`]);
    const callback = new URL((await browser.fetch(again.headers.get('location')!)).headers.get('location')!);
    expect((await browser.fetch(callback.toString())).status).toBe(200);
  });

  it("leave visitor authentication alone: its callback reaches it with the visitor's location as state", async () => {
    const gate = installationOf(world.host, 'visitor-gate');
    const installation = `${world.host.url}/v1/integrations/visitor-gate/installations/${gate}`;
    const answer = await fetch(`${installation}/visitor-auth/response?code=c1&state=%2Fdocs%2Fpage`);
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ code: 'c1', state: '/docs/page' });
  });
});

describe('a sealed flow across two hosts sharing PostgreSQL', () => {
  let server: TestPostgres | undefined;
  const hosts: TestHost[] = [];

  beforeAll(async () => {
    if (postgresUnavailable !== undefined) return;
    server = await startPostgres();
    const storeUrl = await server.createDatabase();
    const env = {
      ...process.env,
      HAND_ROLLED_CLIENT_ID: OAUTH_CLIENT.clientId,
      HAND_ROLLED_CLIENT_SECRET: OAUTH_CLIENT.clientSecret,
      HAND_ROLLED_AUTHORIZE_URL: world.provider.authorizeURL,
      HAND_ROLLED_TOKEN_URL: world.provider.tokenURL,
    };
    for (let i = 0; i < 2; i++)
      hosts.push(
        await startTestHost({
          storeUrl,
          dirs: ['test/fixtures/gitbook-oauth/hand-rolled'],
          allowEgress: ['127.0.0.1'],
          autoInstall: false,
          env,
        }),
      );
  }, 120_000);
  afterAll(async () => {
    for (const host of hosts) await host.close();
    await server?.stop();
  });

  it.skipIf(postgresUnavailable !== undefined)(
    "is redeemed on the other host with the integration's own state, then refused on both",
    async () => {
      const [a, b] = hosts;
      const installation = await install(a, 'hand-rolled', { organization: 'acme', target: 'organization' });
      const browser = createBrowserClient();
      const started = await browser.fetch(
        `${installation.urls.publicEndpoint}/start-form?ticket=${await ticketOf(a, installation.id)}`,
      );
      const page = await (await browser.fetch(started.headers.get('location')!)).text();
      const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(page)![1];
      const body = new URLSearchParams({ code: field('code'), state: field('state') }).toString();
      const post = (host: TestHost, cookie?: string) =>
        browser.fetch(`${host.url}/v1/integrations/hand-rolled/integration/callback-form`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}) },
          body,
        });

      // The browser's binding cookie is host-only by name, so B (same 127.0.0.1) receives it.
      const onB = await post(b);
      expect(
        b.logs.some((line) =>
          line.includes(
            `oauth: accepted a callback of hand-rolled (integration endpoint) (flow of ${installation.id})`,
          ),
        ),
      ).toBe(true);
      const { items } = await b.services.listEvents('hand-rolled', { limit: 10 });
      const entry = items.find((item) => item.requestId === onB.headers.get('x-request-id'));
      // The integration ran on B with its own state back. (Its token exchange then fails: each test
      // host's redirect_uri is its own address, which the provider compares.)
      expect(entry?.logs.map((line) => line.text)).toContainEqual(
        `[hand-rolled] form state=${JSON.stringify(`inst:${installation.id}`)}`,
      );

      const nonce = field('state').split('.')[0];
      for (const host of [a, b]) {
        const replay = await post(host, `ih-oauth.${nonce}=irrelevant`);
        expect(replay.status).toBe(400);
        expect((await replay.json()).error.message).toMatch(/already used/);
      }
    },
  );
});

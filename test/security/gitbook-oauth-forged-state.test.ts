// GitBook's runtime OAuth puts the installation id in a plain JSON `state` and stores credentials
// with the token of the dispatch the callback lands in. An attacker with an installation of their
// own (another organization) runs the flow, then re-points the callback's state at a victim's
// installation (or a space installation of it): the runtime's update runs with the attacker's own
// installation token, which reaches only its own tree, so it is refused and the victim keeps its
// credentials. The same callback with the attacker's own state connects the attacker (control).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installationOf, startTestHost, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';
import { install } from '../helpers/platform-api.ts';
import { startOAuthProvider, type OAuthProvider } from '../../fixtures/oauth-provider/provider.ts';

const CLIENT = { clientId: 'forged-client', clientSecret: 'forged-secret-77a0' };
let provider: OAuthProvider;
let host: TestHost;
let victim: string;
let victimSpace: string;
let attacker: { id: string; endpoint: string; button: string };

beforeAll(async () => {
  provider = await startOAuthProvider(CLIENT);
  host = await startTestHost({
    dirs: ['fixtures/gitbook', 'fixtures/integrations'],
    allowEgress: ['127.0.0.1'],
    env: {
      ...process.env,
      SPACE_DIGEST_CLIENT_ID: CLIENT.clientId,
      SPACE_DIGEST_CLIENT_SECRET: CLIENT.clientSecret,
      SPACE_DIGEST_AUTHORIZE_URL: provider.authorizeURL,
      SPACE_DIGEST_TOKEN_URL: provider.tokenURL,
    },
  });
  victim = installationOf(host, 'space-digest');
  victimSpace = (await install(host, 'space-digest', { organization: 'acme', target: 'space', space: 'space_acme_docs' })).id;
  // The attacker's own installation, in another organization.
  const created = await install(host, 'space-digest', { organization: 'globex', target: 'organization' });
  attacker = { id: created.id, endpoint: created.urls.publicEndpoint, button: created.urls.buttons.oauth_credentials };
});
afterAll(async () => {
  await host?.close();
  await provider?.close();
});

const get = (url: string) => fetch(url, { redirect: 'manual' });

/** The attacker runs the flow on their own installation: the provider's callback, with a code for the attacker's account. */
async function attackerCallback(): Promise<URL> {
  const started = await get(attacker.button);
  expect(started.status).toBe(302);
  const approved = await get(started.headers.get('location')!);
  return new URL(approved.headers.get('location')!);
}

describe('a forged OAuth state with GitBook\'s runtime', () => {
  it.each([
    ['the victim\'s organization installation', () => ({ installationId: victim })],
    ['the victim\'s space installation', () => ({ installationId: victim, spaceId: 'space_acme_docs' })],
  ])('cannot store the attacker\'s credentials on %s', async (_, forged) => {
    const callback = await attackerCallback();
    expect(JSON.parse(callback.searchParams.get('state')!)).toEqual({ installationId: attacker.id });
    callback.searchParams.set('state', JSON.stringify(forged()));
    const answer = await get(callback.toString());
    // The runtime's update was refused (404 to the attacker's token), so its handler failed.
    expect(answer.status).toBe(500);
    expect((await host.stores.installations.getInstallation(victim))?.configuration).toEqual({});
    expect((await host.stores.installations.getInstallation(victimSpace))?.configuration).toEqual({});
    const log = (await (await host.admin('/v1/integrations/space-digest/events?limit=5')).json()).items[0];
    expect(log.logs.map((line: { text: string }) => line.text).join('\n')).toMatch(/GitBook API failed with \[404\]/);
  });

  it('connects the attacker\'s own installation with the attacker\'s own state (control)', async () => {
    const callback = await attackerCallback();
    expect((await get(callback.toString())).status).toBe(200);
    expect((await host.stores.installations.getInstallation(attacker.id))?.configuration.oauth_credentials).toMatchObject({ access_token: provider.issuedTokens.at(-1) });
    expect((await host.stores.installations.getInstallation(victim))?.configuration).toEqual({});
  });

  it('leaves the host answering', async () => {
    await expectHostHealthy(host);
  });
});

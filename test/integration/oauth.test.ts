// OAuth end to end (docs/installations.md): oauth-demo's button → provider served by this test on
// loopback → callback → credentials stored and the installation active. Then every way a callback
// must fail with nothing stored: provider error, tampered, expired, foreign and replayed state.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestHost, type TestHost } from '../helpers/host.ts';
import { eventsOf, eventually, install, patchConfiguration } from '../helpers/lifecycle.ts';
import { startOAuthProvider, type OAuthProvider } from '../../fixtures/oauth-provider/provider.ts';

const CLIENT_ID = 'test-client-id';
const CLIENT_SECRET = 'test-client-secret-8d2e';
let provider: OAuthProvider;
let host: TestHost;
let now = Date.now();

beforeAll(async () => {
  provider = await startOAuthProvider({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
  host = await startTestHost({
    dirs: ['fixtures/integrations'],
    autoInstall: false,
    allowEgress: ['127.0.0.1'],
    clock: () => now,
    env: {
      ...process.env,
      OAUTH_DEMO_CLIENT_ID: CLIENT_ID,
      OAUTH_DEMO_CLIENT_SECRET: CLIENT_SECRET,
      OAUTH_DEMO_AUTHORIZE_URL: provider.authorizeURL,
      OAUTH_DEMO_TOKEN_URL: provider.tokenURL,
    },
  });
});
afterAll(async () => {
  await host?.close();
  await provider?.close();
});

/**
 * `button` is the URL the admin view hands out (it carries the connect ticket); `callback` is the
 * same path without it, where the provider sends the browser back (the state is what counts there).
 */
async function installDemo(space = 'space_acme_docs'): Promise<{ id: string; button: string; callback: string }> {
  const created = await install(host, 'oauth-demo', { organization: 'acme', target: 'space', space });
  expect(created.status).toBe(201);
  const button: string = created.json.urls.buttons.oauth_credentials;
  return { id: created.json.id, button, callback: button.split('?')[0] };
}

const get = (url: string) => fetch(url, { redirect: 'manual' });

/** Presses the button: the host-issued state and the provider URL it redirects to. */
async function start(button: string): Promise<URL> {
  const response = await get(button);
  expect(response.status).toBe(302);
  return new URL(response.headers.get('location')!);
}

/** Lets the provider approve: the callback URL (with code and state) it sends the browser back to. */
async function approve(authorize: URL): Promise<URL> {
  const response = await get(authorize.toString());
  expect(response.status).toBe(302);
  return new URL(response.headers.get('location')!);
}

describe('the button starts the flow', () => {
  it(
    'redirects to authorizeURL with client_id, redirect_uri, ' + 'response_type, scope and a host-signed state',
    async () => {
      const { button, callback } = await installDemo();
      expect(button).toMatch(/\/v1\/integrations\/oauth-demo\/installations\/inst_\w+\/oauth\?ticket=[\w-]+\.[\w-]+$/);
      const authorize = await start(button);
      expect(`${authorize.origin}${authorize.pathname}`).toBe(provider.authorizeURL);
      expect(authorize.searchParams.get('client_id')).toBe(CLIENT_ID);
      expect(authorize.searchParams.get('redirect_uri')).toBe(callback);
      expect(authorize.searchParams.get('response_type')).toBe('code');
      expect(authorize.searchParams.get('scope')).toBe('channels:read chat:write');
      expect(authorize.searchParams.get('state')).toMatch(/^[\w-]+\.[\w-]+$/);
      expect(authorize.searchParams.has('prompt')).toBe(false);
    },
  );
});

describe('a successful callback', () => {
  it('stores the credentials and, with the channel set, makes the installation active', async () => {
    const { id, button, callback: redirectUri } = await installDemo();
    expect((await patchConfiguration(host, id, { channel: 'releases' })).json.status).toBe('pending');

    const callback = await approve(await start(button));
    const done = await get(callback.toString());
    expect(done.status).toBe(200);
    expect(done.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await done.text()).toContain('Connected');

    const token = provider.issuedTokens.at(-1)!;
    expect(provider.tokenRequests.at(-1)).toEqual({
      grant_type: 'authorization_code',
      code: callback.searchParams.get('code'),
      redirect_uri: redirectUri,
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
    });
    expect((await host.stores.installations.getInstallation(id))!.configuration).toEqual({
      channel: 'releases',
      oauth_credentials: { access_token: token },
    });

    const view = await (await host.admin(`/v1/installations/${id}`)).json();
    expect(view.status).toBe('active');
    expect(view.configuration).toEqual({ channel: 'releases', oauth_credentials: '[redacted]' });
    expect(JSON.stringify(view)).not.toContain(token);
    expect(JSON.stringify(view)).not.toContain(CLIENT_SECRET);

    await eventually(async () => {
      const setups = (await eventsOf(host, 'oauth-demo')).filter(
        (event) => event.installationId === id && event.type === 'installation_setup',
      );
      expect(setups.map((event) => event.logs[0]?.text)).toEqual([
        'installation_setup: status active',
        'installation_setup: status pending',
        'installation_setup: status pending',
      ]);
    });
  });

  it('cannot be replayed: the same callback again is a 400 and nothing more is stored', async () => {
    const { id, button } = await installDemo();
    const callback = await approve(await start(button));
    expect((await get(callback.toString())).status).toBe(200);
    const stored = (await host.stores.installations.getInstallation(id))!.configuration;
    const tokenRequests = provider.tokenRequests.length;

    const replay = await get(callback.toString());
    expect(replay.status).toBe(400);
    expect(await replay.text()).toMatch(/already used/);
    expect(provider.tokenRequests.length).toBe(tokenRequests);
    expect((await host.stores.installations.getInstallation(id))!.configuration).toEqual(stored);
  });
});

describe('callbacks that store nothing', () => {
  it('a provider error (token endpoint 400) answers a readable error page', async () => {
    const { id, button } = await installDemo();
    const callback = await approve(await start(button));
    provider.failTokenWith = 400;
    try {
      const response = await get(callback.toString());
      expect(response.status).toBe(502);
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await response.text()).toContain('Could not connect: the provider answered 400');
    } finally {
      provider.failTokenWith = null;
    }
    expect((await host.stores.installations.getInstallation(id))!.configuration).toEqual({});
    expect((await host.stores.installations.getInstallation(id))!.status).toBe('pending');
  });

  it('a tampered state is refused before the code is exchanged', async () => {
    const { id, button } = await installDemo();
    const callback = await approve(await start(button));
    const state = callback.searchParams.get('state')!;
    const last = state.at(-1) === 'A' ? 'B' : 'A';
    callback.searchParams.set('state', `${state.slice(0, -1)}${last}`);
    const tokenRequests = provider.tokenRequests.length;
    const response = await get(callback.toString());
    expect(response.status).toBe(400);
    expect(await response.text()).toMatch(/signature does not match/);
    expect(provider.tokenRequests.length).toBe(tokenRequests);
    expect((await host.stores.installations.getInstallation(id))!.configuration).toEqual({});
  });

  it('an expired state (older than 10 minutes) is refused', async () => {
    const { id, button } = await installDemo();
    const callback = await approve(await start(button));
    now += 10 * 60 * 1000 + 1;
    const response = await get(callback.toString());
    expect(response.status).toBe(400);
    expect(await response.text()).toMatch(/expired/);
    expect((await host.stores.installations.getInstallation(id))!.configuration).toEqual({});
  });

  it("another installation's state is refused", async () => {
    const first = await installDemo();
    const second = await installDemo('space_acme_internal');
    const callback = await approve(await start(first.button));
    const foreign = new URL(`${second.callback}${callback.search}`);
    const response = await get(foreign.toString());
    expect(response.status).toBe(400);
    expect(await response.text()).toMatch(/another installation/);
    expect((await host.stores.installations.getInstallation(second.id))!.configuration).toEqual({});
    // The refused attempt did not spend the state: its own installation can still use it.
    expect((await get(callback.toString())).status).toBe(200);
  });

  it('a callback without state, or a denial by the provider, is a 400 page', async () => {
    const { callback } = await installDemo();
    expect((await get(`${callback}?code=abc`)).status).toBe(400);
    const denied = await get(`${callback}?error=access_denied`);
    expect(denied.status).toBe(400);
    expect(await denied.text()).toContain('access_denied');
  });
});

// fixtures/gitbook/space-digest (written for this host against @gitbook/runtime and @gitbook/api)
// through the real host: OAuth connect through the runtime's own handler against the loopback
// provider, started from the button URL and sealed by the host (callback on the installation's
// endpoint, and on the integration's own one), a
// space_content_updated handler that calls getSpaceById and updates its own space installation,
// and the task it queues. Every event, environment-derived object and API answer the integration
// saw is validated with the test's own ajv against GitBook's spec.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installationOf, startTestHost, waitFor, type TestHost } from '../helpers/host.ts';
import { install } from '../helpers/platform-api.ts';
import { expectValidAgainstSpec } from '../helpers/gitbook-spec.ts';
import { startOAuthProvider, type OAuthProvider } from '../../fixtures/oauth-provider/provider.ts';
import { createBrowserClient, type BrowserClient } from '../helpers/browser-client.ts';

const CLIENT = { clientId: 'digest-client', clientSecret: 'digest-secret-5c1f' };
let provider: OAuthProvider;
let host: TestHost;
let parent: string;
let space: { id: string; endpoint: string };

beforeAll(async () => {
  provider = await startOAuthProvider(CLIENT);
  host = await startTestHost({
    dirs: ['fixtures/gitbook'],
    allowEgress: ['127.0.0.1'],
    env: {
      ...process.env,
      SPACE_DIGEST_CLIENT_ID: CLIENT.clientId,
      SPACE_DIGEST_CLIENT_SECRET: CLIENT.clientSecret,
      SPACE_DIGEST_AUTHORIZE_URL: provider.authorizeURL,
      SPACE_DIGEST_TOKEN_URL: provider.tokenURL,
    },
  });
  parent = installationOf(host, 'space-digest');
  const installed = await install(host, 'space-digest', {
    organization: 'acme',
    target: 'space',
    space: 'space_acme_docs',
  });
  space = { id: installed.id, endpoint: installed.urls.publicEndpoint };
});
afterAll(async () => {
  await host?.close();
  await provider?.close();
});

/** Follows the runtime's redirect to the provider and the provider's back, in one browser: the callback URL. */
async function authorize(browser: BrowserClient, start: string): Promise<URL> {
  const started = await browser.fetch(start);
  expect(started.status).toBe(302);
  const approved = await browser.fetch(started.headers.get('location')!);
  expect(approved.status).toBe(302);
  return new URL(approved.headers.get('location')!);
}

/** The JSON logged by the integration after `prefix ` in its event-log entries, newest first. */
async function logged(prefix: string): Promise<unknown[]> {
  const response = await host.admin('/v1/integrations/space-digest/events?limit=200');
  const entries: { logs: { text: string }[] }[] = (await response.json()).items;
  return entries
    .flatMap((entry) => entry.logs)
    .flatMap((line) =>
      line.text.startsWith(`[space-digest] ${prefix} `)
        ? [JSON.parse(line.text.slice(`[space-digest] ${prefix} `.length))]
        : [],
    );
}

/** The same, from lines the host logged for the integration outside any one event's entry. */
function hostLogged(prefix: string): unknown[] {
  const marker = `log: [space-digest] ${prefix} `;
  return host.logs.flatMap((line) =>
    line.startsWith('info [space-digest ') && line.includes(marker)
      ? [JSON.parse(line.slice(line.indexOf(marker) + marker.length))]
      : [],
  );
}

describe("OAuth through @gitbook/runtime's createOAuthHandler", () => {
  it(
    'connects an organization installation from its button: the host seals the state, its own token stores the ' +
      'credentials',
    async () => {
      const view = await host.admin(`/v1/installations/${parent}`).then((response) => response.json());
      expect(view.status).toBe('pending');
      const browser = createBrowserClient();
      const callback = await authorize(browser, view.urls.buttons.oauth_credentials);
      // GitBook's runtime: redirect_uri is the request URL without its query (the host's ticket taken
      // off first); the state the provider carries is the host's, bound to this browser by a cookie.
      expect(`${callback.origin}${callback.pathname}`).toBe(`${view.urls.publicEndpoint}/oauth`);
      expect(callback.searchParams.get('state')).toMatch(/^[\w-]{22}\.[\w-]{43}$/);
      expect(browser.cookies().map((cookie) => cookie.name)).toEqual([
        `ih-oauth.${callback.searchParams.get('state')!.split('.')[0]}`,
      ]);
      const done = await browser.fetch(callback.toString());
      // The runtime parsed its own JSON state again (the host restored it) and stored the credentials.
      expect(done.status).toBe(200);
      expect(await done.text()).toContain('You can close this window now.');
      expect(browser.cookies()).toEqual([]);
      const stored = await host.stores.installations.getInstallation(parent);
      expect(stored?.status).toBe('active');
      expect(stored?.configuration.oauth_credentials).toMatchObject({ access_token: provider.issuedTokens.at(-1) });
      // The admin still sees only that it is set.
      expect(
        (await host.admin(`/v1/installations/${parent}`).then((response) => response.json())).configuration
          .oauth_credentials,
      ).toBe('[redacted]');
    },
  );

  it("connects through the integration's one redirect URI: the callback lands on its own endpoint", async () => {
    const button = new URL(
      (await host.admin(`/v1/installations/${parent}`).then((response) => response.json())).urls.buttons
        .oauth_credentials,
    );
    const browser = createBrowserClient();
    // The same installation's ticket starts a flow from any path of its endpoint.
    const ticket = button.searchParams.get('ticket');
    const callback = await authorize(
      browser,
      `${host.url}/v1/integrations/space-digest/installations/${parent}/oauth/shared?ticket=${ticket}`,
    );
    expect(`${callback.origin}${callback.pathname}`).toBe(
      `${host.url}/v1/integrations/space-digest/integration/oauth/shared`,
    );
    expect((await browser.fetch(callback.toString())).status).toBe(200);
    expect((await host.stores.installations.getInstallation(parent))?.configuration.oauth_credentials).toMatchObject({
      access_token: provider.issuedTokens.at(-1),
    });
  });
});

describe("an event handler using GitBook's API", () => {
  it(
    'reads the space with getSpaceById and updates its own ' + 'space installation, then its queued task runs',
    async () => {
      const published = await host.admin('/v1/events', {
        method: 'POST',
        body: JSON.stringify({ type: 'space_content_updated', spaceId: 'space_acme_docs', revisionId: 'rev-42' }),
      });
      expect(published.status).toBe(202);
      // The space installation receives it, not the organization installation above it.
      expect((await published.json()).dispatched).toEqual([
        { installationId: space.id, integration: 'space-digest', status: 200 },
      ]);
      const stored = await host.stores.installations.getInstallation(space.id);
      // The queued task (below) may already have run on a busy machine and added its count.
      const { digests, ...handled } = stored?.configuration ?? {};
      expect(handled).toEqual({ last_title: 'Acme Developer Docs', last_revision: 'rev-42' });
      expect([undefined, 1]).toContain(digests);

      const [event] = await logged('event');
      expectValidAgainstSpec('SpaceContentUpdatedEvent', event);
      expectValidAgainstSpec('Event', event);
      expect(event).toMatchObject({
        type: 'space_content_updated',
        spaceId: 'space_acme_docs',
        revisionId: 'rev-42',
        installationId: space.id,
        updatedBy: [],
      });
      const [answer] = await logged('space');
      expectValidAgainstSpec('Space', answer);
      expect(answer).toMatchObject({ id: 'space_acme_docs', title: 'Acme Developer Docs' });
      const [updated] = await logged('updated');
      expectValidAgainstSpec('IntegrationSpaceInstallation', updated);

      // The task it queued runs later, through an installation client the integration token created.
      await waitFor(
        async () => (await host.stores.installations.getInstallation(space.id))?.configuration.digests === 1,
        10_000,
      );
      // The task logs its result after the update, which sends the installation's setup event: with
      // that dispatch of another installation in flight, the line cannot be told apart and goes to the
      // host log only (security.md); else it is in the task's event-log entry.
      const digestedLines = async () => [...(await logged('digested')), ...hostLogged('digested')];
      await waitFor(async () => (await digestedLines()).length > 0, 10_000);
      const [digested] = await digestedLines();
      expectValidAgainstSpec('IntegrationSpaceInstallation', digested);
      expect(digested).toMatchObject({
        space: 'space_acme_docs',
        configuration: { last_title: 'Acme Developer Docs', last_revision: 'rev-42', digests: 1 },
      });
    },
  );
});

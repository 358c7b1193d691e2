// The host seals a redirect only when its redirect_uri comes back to this host's endpoints of the
// answering integration. A redirect to a provider with a redirect_uri elsewhere (another site) is
// the integration's business: it leaves byte for byte as the integration wrote it, its own state
// included, with no binding cookie and no ticket needed; and a ticketed request that does not
// start a flow passes as it would without the host (only the ticket is taken off its URL).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBrowserClient } from '../helpers/browser-client.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';
import { startSealedOAuthWorld, ticketOf, type SealedOAuthWorld } from '../helpers/sealed-oauth.ts';

let world: SealedOAuthWorld;

beforeAll(async () => {
  world = await startSealedOAuthWorld();
});
afterAll(() => world?.close());

describe('a redirect whose redirect_uri is not this host', () => {
  it('is left as the integration wrote it, with or without a ticket', async () => {
    const endpoint = `${world.host.url}/v1/integrations/hand-rolled/installations/${world.handRolled}`;
    const redirectUri = encodeURIComponent('https://elsewhere.example/callback');
    const expected =
      `${world.provider.authorizeURL}?client_id=sealed-client&response_type=code&redirect_uri=${redirectUri}` +
      '&scope=read%20write&state=keep-me';
    for (const query of ['', `?ticket=${await ticketOf(world.host, world.handRolled)}`]) {
      const browser = createBrowserClient();
      const answer = await browser.fetch(`${endpoint}/start-foreign${query}`);
      expect(answer.status).toBe(302);
      expect(answer.headers.get('location')).toBe(expected);
      expect(answer.headers.getSetCookie()).toEqual([]);
      expect(browser.cookies()).toEqual([]);
    }
    expect(world.host.logs.some((line) => line.includes('oauth: sealed'))).toBe(false);
  });

  it('lets a ticketed request that starts no flow through, without its ticket', async () => {
    const ticket = await ticketOf(world.host, world.handRolled);
    const endpoint = `${world.host.url}/v1/integrations/hand-rolled/installations/${world.handRolled}`;
    const answer = await fetch(`${endpoint}/elsewhere?ticket=${ticket}&keep=1`);
    expect(answer.status).toBe(404);
    expect(await answer.text()).toBe('no route for /elsewhere');
    const { items } = await world.host.services.listEvents('hand-rolled', { limit: 1 });
    expect(items[0].logs.map((line) => line.text)).toContainEqual(expect.stringContaining('GET /elsewhere state=null'));
  });

  it('leaves the host answering', async () => {
    await expectHostHealthy(world.host);
  });
});

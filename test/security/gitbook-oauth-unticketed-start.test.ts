// Starting a GitBook-runtime OAuth flow from a guessed or shared public URL: on GitBook anyone who
// knows an installation's endpoint can start its flow (and, with the callback, connect it to an
// account of their own). Here a redirect to a provider coming back to this host leaves only for a
// request that carried the connect ticket of an admin view (15 minutes, bound to the installation):
// without one, with a tampered, foreign or expired one, the host answers 403 naming why and the
// browser never reaches the provider; the button a fresh view shows starts it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBrowserClient } from '../helpers/browser-client.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';
import { install } from '../helpers/platform-api.ts';
import { buttonOf, startSealedOAuthWorld, ticketOf, type SealedOAuthWorld } from '../helpers/sealed-oauth.ts';

let world: SealedOAuthWorld;
let now = Date.parse('2026-06-01T12:00:00Z');

beforeAll(async () => {
  world = await startSealedOAuthWorld({ clock: () => now });
});
afterAll(() => world?.close());

async function refusedStart(url: string, reason: RegExp): Promise<void> {
  const browser = createBrowserClient();
  const answer = await browser.fetch(url, { headers: { accept: 'text/html' } });
  expect(answer.status).toBe(403);
  expect(answer.headers.get('location')).toBeNull();
  expect(answer.headers.get('content-type')).toBe('text/html; charset=utf-8');
  const page = await answer.text();
  expect(page).toMatch(reason);
  expect(page).toContain('ERR_OAUTH_TICKET_INVALID');
  expect(browser.cookies()).toEqual([]);
}

describe('a GitBook-runtime OAuth start', () => {
  it(
    'is refused without a ticket, with a tampered one or ' + "another installation's; the provider is never reached",
    async () => {
      const other = (await install(world.host, 'space-digest', { organization: 'globex', target: 'organization' })).id;
      const start = `${world.host.url}/v1/integrations/space-digest/installations/${world.digest}/oauth`;
      const ticket = await ticketOf(world.host, world.digest);
      await refusedStart(start, /carries no connect ticket/);
      await refusedStart(
        `${world.host.url}/v1/integrations/hand-rolled/installations/${world.handRolled}/start`,
        /carries no connect ticket/,
      );
      await refusedStart(`${start}?ticket=${ticket.slice(0, -2)}xx`, /not issued by this host/);
      await refusedStart(`${start}?ticket=${await ticketOf(world.host, other)}`, /belongs to another installation/);
      await refusedStart(`${start}?ticket=${ticket}&ticket=${ticket}`, /several tickets/);
      expect(world.provider.authorizeRequests).toEqual([]);
      expect(world.host.logs.filter((line) => line.includes('oauth: refused an OAuth start'))).toHaveLength(5);
    },
  );

  it("is refused once the ticket is older than 15 minutes; a fresh view's button starts it", async () => {
    const stale = await buttonOf(world.host, world.digest);
    now += 15 * 60 * 1000 + 1;
    await refusedStart(stale, /has expired/);
    const answer = await createBrowserClient().fetch(await buttonOf(world.host, world.digest));
    expect(answer.status).toBe(302);
    expect(answer.headers.get('location')!.startsWith(world.provider.authorizeURL)).toBe(true);
  });

  it('leaves the host answering', async () => {
    await expectHostHealthy(world.host);
  });
});

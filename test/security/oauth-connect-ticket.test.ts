// Starting an installation's OAuth flow from a guessed or shared public URL: anyone who knew the
// endpoint could connect the installation to an account of theirs. The button URLs an admin view
// hands out carry a connect ticket (signed, bound to the installation, 15 minutes); without a
// valid one the host issues no OAuth state, so the flow cannot start.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withDevDefaults } from '../../host/config/dev-env.ts';
import { startTestHost, type TestHost } from '../helpers/host.ts';
import { install } from '../helpers/lifecycle.ts';

let host: TestHost;
let now = Date.parse('2026-06-01T12:00:00Z');
let victim: { button: string; callback: string };
let other: { button: string };

beforeAll(async () => {
  host = await startTestHost({ env: withDevDefaults(process.env).env, clock: () => now });
  const a = (await install(host, 'oauth-demo', { organization: 'acme', target: 'space', space: 'space_acme_docs' }))
    .json;
  const b = (await install(host, 'oauth-demo', { organization: 'acme', target: 'space', space: 'space_acme_internal' }))
    .json;
  victim = { button: a.urls.buttons.oauth_credentials, callback: a.urls.buttons.oauth_credentials.split('?')[0] };
  other = { button: b.urls.buttons.oauth_credentials };
});
afterAll(() => host?.close());

const press = (url: string) => fetch(url, { redirect: 'manual' });
const ticketOf = (url: string) => new URL(url).searchParams.get('ticket')!;

async function refusedWith(url: string, reason: RegExp): Promise<void> {
  const answer = await press(url);
  expect(answer.status).toBe(403);
  expect(answer.headers.get('location')).toBeNull();
  expect(await answer.text()).toMatch(reason);
}

describe('the OAuth connect start', () => {
  it('is refused without a ticket', async () => {
    await refusedWith(victim.callback, /carries no ticket/);
  });

  it("is refused with a tampered ticket or another installation's", async () => {
    const ticket = ticketOf(victim.button);
    await refusedWith(`${victim.callback}?ticket=${ticket.slice(0, -2)}xx`, /not issued by this host/);
    await refusedWith(`${victim.callback}?ticket=${ticketOf(other.button)}`, /belongs to another installation/);
  });

  it('starts with the ticket of the button an admin view showed', async () => {
    const answer = await press(victim.button);
    expect(answer.status).toBe(302);
    expect(new URL(answer.headers.get('location')!).searchParams.get('state')).toMatch(/^[\w-]+\.[\w-]+$/);
  });

  it('is refused once the ticket is older than 15 minutes, and a fresh view gives a new one', async () => {
    const stale = victim.button;
    now += 15 * 60 * 1000 + 1;
    await refusedWith(stale, /has expired/);
    const id = new URL(stale).pathname.split('/')[5];
    const fresh = (await (await host.admin(`/v1/installations/${id}`)).json()).urls.buttons.oauth_credentials;
    expect((await press(fresh)).status).toBe(302);
  });
});

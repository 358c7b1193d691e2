// The public endpoints' OAuth gate over the fake services, through the direct path and through
// Koa alike: a sealed integration's redirect to a provider leaves with the host's state and a
// binding cookie only from a ticketed start; its callbacks reach it with its own state only when
// the host issued theirs to that browser; an integration that is not sealed is never touched.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createConnectTickets } from '../../../host/installations/connect-ticket.ts';
import { createFakeServices, sandboxResponse, startApp, type FakeServices, type RunningApp } from './fake-services.ts';

const BASE = 'http://host.test:8787';
const ENDPOINT = '/v1/integrations/hello/installations/inst-1';
const CALLBACK = `${BASE}/v1/integrations/hello/integration/oauth`;
const OWN_STATE = '{"installationId":"inst-1"}';
const PROVIDER =
  `https://provider.example/authorize?client_id=c&redirect_uri=${encodeURIComponent(CALLBACK)}` +
  `&scope=a%20b&state=${encodeURIComponent(OWN_STATE)}`;

let services: FakeServices;
let apps: { direct: RunningApp; koa: RunningApp };

beforeEach(async () => {
  services = createFakeServices();
  services.sealed.add('hello');
  apps = { direct: await startApp(services), koa: await startApp(services, undefined, { koaOnly: true }) };
});
afterEach(async () => {
  await apps.direct.close();
  await apps.koa.close();
});

const ticket = () => createConnectTickets({ secret: 'fake-secret', now: () => services.now }).mint('inst-1');
const urlSeen = () => (services.dispatchCalls.at(-1)!.event.request as { url: string }).url;

describe.each(['direct', 'koa'] as const)('the OAuth gate (%s path)', (path) => {
  const url = (target: string) => `${apps[path].url}${target}`;

  it(
    "seals a ticketed start: the host's state in place of the integration's, a binding cookie, the ticket never " +
      'seen',
    async () => {
      services.respond = () =>
        sandboxResponse(302, [
          ['location', PROVIDER],
          ['cache-control', 'max-age=60'],
        ]);
      const answer = await fetch(url(`${ENDPOINT}/oauth?x=1&ticket=${ticket()}`), { redirect: 'manual' });
      expect(answer.status).toBe(302);
      expect(urlSeen()).toBe(`${BASE}${ENDPOINT}/oauth?x=1`);
      const location = answer.headers.get('location')!;
      const state = new URL(location).searchParams.get('state')!;
      expect(location).toBe(PROVIDER.replace(`state=${encodeURIComponent(OWN_STATE)}`, `state=${state}`));
      const [nonce] = state.split('.');
      expect(answer.headers.get('cache-control')).toBe('no-store');
      const cookies = answer.headers.getSetCookie();
      expect(cookies).toHaveLength(1);
      expect(cookies[0]).toMatch(
        new RegExp(
          `^ih-oauth\\.${nonce}=[\\w-]{43}; Path=/v1/integrations/hello/; Max-Age=600; HttpOnly; SameSite=Lax$`,
        ),
      );
      expect(services.sealedRows.get(nonce)).toMatchObject({
        integration: 'hello',
        installationId: 'inst-1',
        callbackPath: '/v1/integrations/hello/integration/oauth',
        originalState: OWN_STATE,
        usedAt: null,
      });
    },
  );

  it('refuses a start without a ticket, naming why, as JSON or as a page', async () => {
    services.respond = () => sandboxResponse(302, [['location', PROVIDER]]);
    const json = await fetch(url(`${ENDPOINT}/oauth`), { redirect: 'manual' });
    expect(json.status).toBe(403);
    expect(json.headers.get('location')).toBeNull();
    expect((await json.json()).error).toEqual({
      code: 'ERR_OAUTH_TICKET_INVALID',
      message: expect.stringMatching(/carries no connect ticket/),
    });
    const page = await fetch(url(`${ENDPOINT}/oauth?ticket=${ticket().slice(0, -2)}xx`), {
      redirect: 'manual',
      headers: { accept: 'text/html,*/*' },
    });
    expect(page.status).toBe(403);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await page.text()).toMatch(/not issued by this host.*ERR_OAUTH_TICKET_INVALID/s);
    expect(services.sealedRows.size).toBe(0);
    expect(services.logs.filter((line) => line.level === 'warn').map((line) => line.message)).toEqual([
      expect.stringMatching(/^oauth: refused an OAuth start of hello inst-1 .*carries no connect ticket/),
      expect.stringMatching(/^oauth: refused an OAuth start of hello inst-1 .*not issued by this host/),
    ]);
  });

  it("refuses a callback before the integration runs unless its state is the host's, for this browser", async () => {
    for (const query of [
      'code=c',
      `code=c&state=${encodeURIComponent(OWN_STATE)}`,
      'error=denied&state=x.y',
      'code=c&state=a&state=b',
    ]) {
      const answer = await fetch(url(`/v1/integrations/hello/integration/oauth?${query}`), { redirect: 'manual' });
      expect(answer.status, query).toBe(400);
      expect((await answer.json()).error.code).toBe('ERR_OAUTH_STATE_INVALID');
    }
    expect(services.dispatchCalls).toEqual([]);
  });

  it("gives a redeemed callback its own state back and clears the browser's cookie", async () => {
    services.respond = () => sandboxResponse(302, [['location', PROVIDER]]);
    const started = await fetch(url(`${ENDPOINT}/oauth?ticket=${ticket()}`), { redirect: 'manual' });
    const state = new URL(started.headers.get('location')!).searchParams.get('state')!;
    const cookie = started.headers.getSetCookie()[0].split(';')[0];
    services.respond = () => sandboxResponse(200, [['content-type', 'text/html']], 'connected');
    const done = await fetch(url(`/v1/integrations/hello/integration/oauth?code=c&state=${state}`), {
      headers: { cookie },
    });
    expect(done.status).toBe(200);
    expect(urlSeen()).toBe(
      `${BASE}/v1/integrations/hello/integration/oauth?code=c&state=${encodeURIComponent(OWN_STATE)}`,
    );
    // The integration never sees the binding cookie.
    expect(
      (services.dispatchCalls.at(-1)!.event.request as { headers: [string, string][] }).headers.find(
        ([name]) => name === 'cookie',
      ),
    ).toBeUndefined();
    expect(done.headers.getSetCookie()).toEqual([
      `${cookie.split('=')[0]}=; Path=/v1/integrations/hello/; Max-Age=0; HttpOnly; SameSite=Lax`,
    ]);
  });

  it('gives a form_post callback its own state back in the body, with its length', async () => {
    services.respond = () => sandboxResponse(302, [['location', PROVIDER]]);
    const started = await fetch(url(`${ENDPOINT}/oauth?ticket=${ticket()}`), { redirect: 'manual' });
    const state = new URL(started.headers.get('location')!).searchParams.get('state')!;
    const cookie = started.headers.getSetCookie()[0].split(';')[0];
    services.respond = () => sandboxResponse(200);
    const body = `code=c&state=${state}&id_token=x`;
    expect(
      (
        await fetch(url('/v1/integrations/hello/integration/oauth'), {
          method: 'POST',
          headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
          body,
        })
      ).status,
    ).toBe(200);
    const call = services.dispatchCalls.at(-1)!;
    const seen = new TextDecoder().decode(call.fetchBody!);
    expect(seen).toBe(`code=c&state=${encodeURIComponent(OWN_STATE)}&id_token=x`);
    expect((call.event.request as { headers: [string, string][] }).headers).toContainEqual([
      'content-length',
      String(seen.length),
    ]);
  });

  it('never touches an integration it does not seal', async () => {
    services.sealed.clear();
    services.respond = () => sandboxResponse(302, [['location', PROVIDER]]);
    const answer = await fetch(url(`${ENDPOINT}/oauth?ticket=kept`), { redirect: 'manual' });
    expect(answer.status).toBe(302);
    expect(answer.headers.get('location')).toBe(PROVIDER);
    expect(answer.headers.getSetCookie()).toEqual([]);
    expect(urlSeen()).toBe(`${BASE}${ENDPOINT}/oauth?ticket=kept`);
    services.respond = () => sandboxResponse(200);
    expect((await fetch(url('/v1/integrations/hello/integration/oauth?code=c'))).status).toBe(200);
  });
});

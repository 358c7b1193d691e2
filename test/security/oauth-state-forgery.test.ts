// OAuth state at the guest boundary: a state not signed by the host, a signed state re-pointed at
// another installation, another installation's state, and another integration's token used from
// inside an isolate are all refused, and none of them stores or spends anything.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { createHmac } from 'node:crypto';
import { startTestHost, endpointOf, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';
import { install, tokenOf } from '../helpers/lifecycle.ts';
import { withDevDefaults } from '../../host/config/dev-env.ts';

let host: TestHost;
let victim: { id: string; token: string; endpoint: string; ticket: string };
let other: { id: string; token: string; ticket: string };

beforeAll(async () => {
  host = await startTestHost({
    dirs: ['fixtures/integrations', 'test/fixtures/oauth-hostile'],
    env: withDevDefaults(process.env).env,
  });
  const a = (await install(host, 'oauth-demo', { organization: 'acme', target: 'space', space: 'space_acme_docs' }))
    .json;
  const b = (await install(host, 'oauth-demo', { organization: 'acme', target: 'space', space: 'space_acme_internal' }))
    .json;
  victim = { id: a.id, token: await tokenOf(host, a.id), endpoint: a.urls.publicEndpoint, ticket: ticketIn(a) };
  other = { id: b.id, token: await tokenOf(host, b.id), ticket: ticketIn(b) };
});
afterAll(() => host?.close());

function asInstallation(token: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${host.url}${path}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/** The connect ticket an admin view put in an installation's button URL. */
function ticketIn(view: { urls: { buttons: Record<string, string> } }): string {
  return new URL(view.urls.buttons.oauth_credentials).searchParams.get('ticket')!;
}

async function issueState(token: string): Promise<string> {
  const ticket = token === victim.token ? victim.ticket : other.ticket;
  const response = await asInstallation(token, '/v1/installation/oauth/state', { ticket });
  expect(response.status).toBe(200);
  return (await response.json()).state;
}

async function consume(token: string, state: string): Promise<{ status: number; message?: string }> {
  const response = await asInstallation(token, '/v1/installation/oauth/state/consume', { state });
  return {
    status: response.status,
    message: response.status === 204 ? undefined : (await response.json()).error.message,
  };
}

const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('forged states', () => {
  it('a state signed with a guessed key is refused by the self route', async () => {
    const payload = encode({ n: 'forged-nonce', i: victim.id, e: Date.now() + 60_000 });
    const signature = createHmac('sha256', 'guessed-secret').update(`oauth-state:${payload}`).digest('base64url');
    const forged = `${payload}.${signature}`;
    const answer = await consume(victim.token, forged);
    expect(answer.status).toBe(400);
    expect(answer.message).toMatch(/signature does not match/);
  });

  it('a forged state on the OAuth callback stores nothing and never reaches the provider', async () => {
    const payload = encode({ n: 'forged-nonce-2', i: victim.id, e: Date.now() + 60_000 });
    const response = await fetch(`${victim.endpoint}/oauth?code=attacker-code&state=${payload}.AAAA`, {
      redirect: 'manual',
    });
    expect(response.status).toBe(400);
    expect((await host.stores.installations.getInstallation(victim.id))!.configuration).toEqual({});
  });

  it('a signed state re-pointed at another installation keeps the old signature and is refused', async () => {
    const state = await issueState(victim.token);
    const [payload, signature] = state.split('.');
    const repointed = { ...JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')), i: other.id };
    const answer = await consume(other.token, `${encode(repointed)}.${signature}`);
    expect(answer.status).toBe(400);
    expect(answer.message).toMatch(/signature does not match/);
  });

  it.each(['', 'no-dot', '.', 'a.b.c'])('a malformed state %j is refused', async (state) => {
    expect((await consume(victim.token, state)).status).toBe(400);
  });
});

describe("another installation's state", () => {
  it('is refused, and the refusal does not spend it for its own installation', async () => {
    const state = await issueState(victim.token);
    const answer = await consume(other.token, state);
    expect(answer.status).toBe(400);
    expect(answer.message).toMatch(/another installation/);
    expect((await consume(victim.token, state)).status).toBe(204);
    expect((await consume(victim.token, state)).status).toBe(400);
  });
});

describe("another integration's token inside an isolate", () => {
  it('opens neither the self routes nor the victim’s state', async () => {
    const state = await issueState(victim.token);
    const response = await fetch(endpointOf(host, 'token-thief'), {
      method: 'POST',
      body: new URLSearchParams({ token: victim.token, state }),
    });
    expect(await response.json()).toEqual({ patch: 401, consume: 401 });
    expect((await host.stores.installations.getInstallation(victim.id))!.configuration).toEqual({});
    expect((await consume(victim.token, state)).status).toBe(204);
  });
});

describe('afterwards', () => {
  it('leaves the host and its neighbour answering', async () => {
    await expectHostHealthy(host);
  });
});

// GitBook's runtime names the installation in a plain JSON `state`, and on GitBook a callback on the
// integration's own endpoint (the one redirect URI most of its integrations register) runs with
// the integration token: whoever edits the state connects another organization's installation to
// their own provider account. Here the attacker runs a genuine flow on an installation of their
// own (another organization), then forges the callback's state to name the victim: GitBook's plain
// JSON naming the victim's installation or its space installation, on the integration's endpoint
// and on the victim's; hand-rolled's unsigned `inst:<id>` in a form_post; the attacker's own sealed
// state moved to the victim's endpoint. Every one is refused before the integration runs, from the
// attacker's own browser (its binding cookie is no help); the victim stays unconnected.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBrowserClient } from '../helpers/browser-client.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';
import { install } from '../helpers/platform-api.ts';
import {
  buttonOf,
  configurationOf,
  expectRefused,
  startSealedOAuthWorld,
  throughProvider,
  type SealedOAuthWorld,
} from '../helpers/sealed-oauth.ts';

let world: SealedOAuthWorld;
let victimSpace: string;
let attacker: { digest: string; handRolled: string };
const browser = createBrowserClient();

beforeAll(async () => {
  world = await startSealedOAuthWorld();
  victimSpace = (
    await install(world.host, 'space-digest', { organization: 'acme', target: 'space', space: 'space_acme_docs' })
  ).id;
  attacker = {
    digest: (await install(world.host, 'space-digest', { organization: 'globex', target: 'organization' })).id,
    handRolled: (await install(world.host, 'hand-rolled', { organization: 'globex', target: 'organization' })).id,
  };
});
afterAll(() => world?.close());

const endpoint = (integration: string, id: string) =>
  `${world.host.url}/v1/integrations/${integration}/installations/${id}`;

/**
 * The attacker's own flow of space-digest on the integration's endpoint: a callback with a code for the attacker's
 * account.
 */
async function attackerCallback(): Promise<URL> {
  const button = new URL(await buttonOf(world.host, attacker.digest));
  return throughProvider(browser, `${endpoint('space-digest', attacker.digest)}/oauth/shared${button.search}`);
}

async function expectVictimUnconnected(): Promise<void> {
  expect(await configurationOf(world.host, world.digest)).toEqual({});
  expect(await configurationOf(world.host, victimSpace)).toEqual({});
  expect(await configurationOf(world.host, world.handRolled)).toEqual({});
}

describe('a forged GitBook-runtime OAuth state', () => {
  it.each([
    ["the victim's installation", () => ({ installationId: world.digest })],
    ["the victim's space installation", () => ({ installationId: world.digest, spaceId: 'space_acme_docs' })],
  ])("naming %s on the integration's endpoint is refused before the integration runs", async (_, forged) => {
    const callback = await attackerCallback();
    callback.searchParams.set('state', JSON.stringify(forged()));
    await expectRefused(
      world.host,
      'space-digest',
      await browser.fetch(callback.toString()),
      400,
      'ERR_OAUTH_STATE_INVALID',
      /not a state this host issued/,
    );
    await expectVictimUnconnected();
  });

  it("naming the victim on the victim's own endpoint is refused before the integration runs", async () => {
    const callback = await attackerCallback();
    const forged = new URL(`${endpoint('space-digest', world.digest)}/oauth`);
    forged.searchParams.set('code', callback.searchParams.get('code')!);
    forged.searchParams.set('state', JSON.stringify({ installationId: world.digest }));
    await expectRefused(
      world.host,
      'space-digest',
      await browser.fetch(forged.toString()),
      400,
      'ERR_OAUTH_STATE_INVALID',
      /not a state this host issued/,
    );
    await expectVictimUnconnected();
  });

  it(
    "moved from the attacker's endpoint to the victim's is " + 'refused, though the host issued it to this browser',
    async () => {
      const button = await buttonOf(world.host, attacker.handRolled);
      const callback = await throughProvider(browser, button);
      expect(callback.pathname).toBe(`/v1/integrations/hand-rolled/installations/${attacker.handRolled}/callback`);
      const moved = new URL(callback.toString().replace(attacker.handRolled, world.handRolled));
      await expectRefused(
        world.host,
        'hand-rolled',
        await browser.fetch(moved.toString()),
        400,
        'ERR_OAUTH_STATE_INVALID',
        /issued for another callback URL/,
      );
      await expectVictimUnconnected();
    },
  );

  it('naming the victim in a form_post callback is refused before the integration runs', async () => {
    const ticket = new URL(await buttonOf(world.host, attacker.handRolled)).searchParams.get('ticket');
    const started = await browser.fetch(`${endpoint('hand-rolled', attacker.handRolled)}/start-form?ticket=${ticket}`);
    const page = await (await browser.fetch(started.headers.get('location')!)).text();
    const code = /name="code" value="([^"]+)"/.exec(page)![1];
    const answer = await browser.fetch(`${world.host.url}/v1/integrations/hand-rolled/integration/callback-form`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ code, state: `inst:${world.handRolled}` }).toString(),
    });
    await expectRefused(
      world.host,
      'hand-rolled',
      answer,
      400,
      'ERR_OAUTH_STATE_INVALID',
      /not a state this host issued/,
    );
    await expectVictimUnconnected();
  });

  it('does not stop the attacker connecting their own installation with their own flow (control)', async () => {
    const callback = await attackerCallback();
    expect((await browser.fetch(callback.toString())).status).toBe(200);
    expect((await configurationOf(world.host, attacker.digest)).oauth_credentials).toMatchObject({
      access_token: world.provider.issuedTokens.at(-1),
    });
    await expectVictimUnconnected();
  });

  it('leaves the host answering', async () => {
    await expectHostHealthy(world.host);
  });
});

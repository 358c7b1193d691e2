// A GitBook-runtime callback replayed: the same callback URL (code and sealed state) opened again
// after it connected, by the browser that finished it and by another, and two copies of a fresh
// callback raced at once. The sealed state is spent by one UPDATE, so the replays are refused
// before the integration runs (no second code exchange, no second store) and exactly one racer
// connects. The same across hosts sharing PostgreSQL: test/integration/gitbook-oauth-sealing.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBrowserClient } from '../helpers/browser-client.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';
import {
  buttonOf,
  configurationOf,
  expectRefused,
  startSealedOAuthWorld,
  throughProvider,
  type SealedOAuthWorld,
} from '../helpers/sealed-oauth.ts';

let world: SealedOAuthWorld;

beforeAll(async () => {
  world = await startSealedOAuthWorld();
});
afterAll(() => world?.close());

describe('a replayed GitBook-runtime OAuth callback', () => {
  it(
    'is refused once its state was used, in the same browser ' + 'and in another, before the integration runs',
    async () => {
      const browser = createBrowserClient();
      const callback = await throughProvider(browser, await buttonOf(world.host, world.digest));
      expect((await browser.fetch(callback.toString())).status).toBe(200);
      const connected = await configurationOf(world.host, world.digest);
      const exchanges = world.provider.tokenRequests.length;

      await expectRefused(
        world.host,
        'space-digest',
        await browser.fetch(callback.toString()),
        400,
        'ERR_OAUTH_STATE_INVALID',
        /already used/,
      );
      await expectRefused(
        world.host,
        'space-digest',
        await createBrowserClient().fetch(callback.toString()),
        400,
        'ERR_OAUTH_STATE_INVALID',
        /already used/,
      );
      expect(world.provider.tokenRequests).toHaveLength(exchanges);
      expect(await configurationOf(world.host, world.digest)).toEqual(connected);
    },
  );

  it('connects exactly once when two copies of one callback arrive together', async () => {
    const browser = createBrowserClient();
    const callback = await throughProvider(browser, await buttonOf(world.host, world.handRolled));
    const exchanges = world.provider.tokenRequests.length;
    const answers = await Promise.all([browser.fetch(callback.toString()), browser.fetch(callback.toString())]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400]);
    expect(world.provider.tokenRequests).toHaveLength(exchanges + 1);
    const refused = answers.find((answer) => answer.status === 400)!;
    await expectRefused(world.host, 'hand-rolled', refused, 400, 'ERR_OAUTH_STATE_INVALID', /already used/);
  });

  it('leaves the host answering', async () => {
    await expectHostHealthy(world.host);
  });
});

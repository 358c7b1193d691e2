// A sealed GitBook-runtime state tampered with: its signature or its nonce changed by one
// character, truncated, another host's (signed with another secret), or a sandbox-api state. The
// signature is checked before anything else, so each is refused before the integration runs
// without touching the store, and the genuine state still connects afterwards.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSealedStates } from '../../host/oauth-seal/sealed-states.ts';
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

const flip = (text: string, at: number) => `${text.slice(0, at)}${text[at] === 'A' ? 'B' : 'A'}${text.slice(at + 1)}`;

describe('a tampered GitBook-runtime OAuth state', () => {
  it('is refused by its signature before the integration runs, and the genuine one still connects', async () => {
    const browser = createBrowserClient();
    const callback = await throughProvider(browser, await buttonOf(world.host, world.digest));
    const state = callback.searchParams.get('state')!;
    const [nonce, signature] = state.split('.');
    const elsewhere = await createSealedStates({
      store: {
        insert: async () => {},
        get: async () => undefined,
        markUsed: async () => false,
        deleteExpired: async () => {},
      },
      secret: 'another-host-secret',
      now: Date.now,
    }).seal({
      integration: 'space-digest',
      installationId: world.digest,
      callbackPath: callback.pathname,
      originalState: null,
    });
    const tampered: [string, RegExp][] = [
      [`${nonce}.${flip(signature, 0)}`, /signature does not match/],
      [`${nonce}.${flip(signature, 42)}`, /signature does not match/],
      [`${flip(nonce, 3)}.${signature}`, /signature does not match/],
      [`${nonce}.${signature.slice(0, 20)}`, /signature does not match/],
      [elsewhere.state, /signature does not match/],
      [`${nonce}.${signature}.extra`, /malformed/],
      ['eyJuIjoiYSIsImkiOiJpbnN0In0.c2lnbmF0dXJl', /malformed/],
    ];
    for (const [forged, reason] of tampered) {
      const url = new URL(callback);
      url.searchParams.set('state', forged);
      await expectRefused(
        world.host,
        'space-digest',
        await browser.fetch(url.toString()),
        400,
        'ERR_OAUTH_STATE_INVALID',
        reason,
      );
    }
    expect(await configurationOf(world.host, world.digest)).toEqual({});
    expect((await browser.fetch(callback.toString())).status).toBe(200);
    expect((await configurationOf(world.host, world.digest)).oauth_credentials).toMatchObject({
      access_token: world.provider.issuedTokens.at(-1),
    });
  });

  it('leaves the host answering', async () => {
    await expectHostHealthy(world.host);
  });
});

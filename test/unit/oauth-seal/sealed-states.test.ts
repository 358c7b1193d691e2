// Sealed OAuth states: redeemed once, on the callback URL they were sealed for, by the browser
// holding their binding, before they expire; refused otherwise, each refusal saying why and
// never spending the state unless its browser presented it.
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../../host/store/sqlite/database.ts';
import { createSqliteSealedStateStore } from '../../../host/store/sqlite/sealed-oauth-states.ts';
import { createSealedStates, SEALED_STATE_TTL_MS, type RedeemInput } from '../../../host/oauth-seal/sealed-states.ts';

function setup(secret = 'host-secret') {
  let now = 1_700_000_000_000;
  const store = createSqliteSealedStateStore(openDatabase(':memory:'));
  const states = createSealedStates({ store, secret, now: () => now });
  return { states, store, advance: (ms: number) => (now += ms) };
}

const FLOW = {
  integration: 'jira',
  installationId: 'inst_a',
  callbackPath: '/v1/integrations/jira/integration/oauth',
  originalState: '{"installationId":"inst_a"}',
};

function redeem(
  states: ReturnType<typeof setup>['states'],
  state: string,
  binding: string | undefined,
  overrides: Partial<RedeemInput> = {},
) {
  return states.redeem({
    integration: FLOW.integration,
    callbackPath: FLOW.callbackPath,
    state,
    bindingFor: () => binding,
    ...overrides,
  });
}

describe('sealed OAuth states', () => {
  it('give the integration its own state back once, for the browser holding the binding', async () => {
    const { states } = setup();
    const sealed = await states.seal(FLOW);
    expect(sealed.state).toMatch(/^[\w-]{22}\.[\w-]{43}$/);
    expect(sealed.state).not.toContain('inst_a');
    expect(await redeem(states, sealed.state, sealed.binding)).toEqual({
      ok: true,
      nonce: sealed.nonce,
      installationId: 'inst_a',
      originalState: FLOW.originalState,
    });
    expect(await redeem(states, sealed.state, sealed.binding)).toEqual({
      ok: false,
      nonce: sealed.nonce,
      reason: expect.stringMatching(/already used/),
    });
  });

  it('keep an integration without a state of its own without one', async () => {
    const { states } = setup();
    const sealed = await states.seal({ ...FLOW, originalState: null });
    expect(await redeem(states, sealed.state, sealed.binding)).toMatchObject({ ok: true, originalState: null });
  });

  it('refuse another browser without spending the state', async () => {
    const { states } = setup();
    const sealed = await states.seal(FLOW);
    const other = await states.seal(FLOW);
    for (const binding of [undefined, '', other.binding, `${sealed.binding}x`]) {
      expect(await redeem(states, sealed.state, binding)).toEqual({
        ok: false,
        reason: expect.stringMatching(/issued to another browser/),
      });
    }
    expect(await redeem(states, sealed.state, sealed.binding)).toMatchObject({ ok: true });
  });

  it('refuse a state sealed for another callback URL or integration', async () => {
    const { states } = setup();
    const sealed = await states.seal(FLOW);
    expect(
      await redeem(states, sealed.state, sealed.binding, {
        callbackPath: '/v1/integrations/jira/installations/inst_b/oauth',
      }),
    ).toMatchObject({ ok: false, reason: expect.stringMatching(/another callback URL/) });
    expect(await redeem(states, sealed.state, sealed.binding, { integration: 'discord' })).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/another callback URL/),
    });
    expect(await redeem(states, sealed.state, sealed.binding)).toMatchObject({ ok: true });
  });

  it('expire after 10 minutes, not before', async () => {
    const { states, advance } = setup();
    const young = await states.seal(FLOW);
    const old = await states.seal(FLOW);
    advance(SEALED_STATE_TTL_MS - 1);
    expect(await redeem(states, young.state, young.binding)).toMatchObject({ ok: true });
    advance(1);
    expect(await redeem(states, old.state, old.binding)).toEqual({
      ok: false,
      nonce: old.nonce,
      reason: expect.stringMatching(/has expired/),
    });
  });

  it('refuse a changed signature or nonce, and states signed with another secret', async () => {
    const { states } = setup();
    const sealed = await states.seal(FLOW);
    const [nonce, signature] = sealed.state.split('.');
    const flip = (text: string) => `${text.slice(0, -1)}${text.endsWith('A') ? 'B' : 'A'}`;
    for (const forged of [
      `${nonce}.${flip(signature)}`,
      `${flip(nonce)}.${signature}`,
      (await setup('another-secret').states.seal(FLOW)).state,
    ]) {
      expect(await redeem(states, forged, sealed.binding)).toEqual({
        ok: false,
        reason: expect.stringMatching(/signature does not match/),
      });
    }
    for (const malformed of ['', nonce, `${sealed.state}.x`, '{"installationId":"inst_a"}', `${nonce}!.${signature}`]) {
      expect(await redeem(states, malformed, sealed.binding)).toEqual({
        ok: false,
        reason: expect.stringMatching(/malformed/),
      });
    }
    expect(await redeem(states, sealed.state, sealed.binding)).toMatchObject({ ok: true });
  });

  it('forget expired rows, after which a state is unknown', async () => {
    const { states, advance, store } = setup();
    const sealed = await states.seal(FLOW);
    advance(SEALED_STATE_TTL_MS + 1);
    await states.seal(FLOW);
    expect(await store.get(sealed.nonce)).toBeUndefined();
    expect(await redeem(states, sealed.state, sealed.binding)).toEqual({
      ok: false,
      reason: expect.stringMatching(/no record of it/),
    });
  });
});

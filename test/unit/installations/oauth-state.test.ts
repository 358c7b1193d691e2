import { describe, it, expect } from 'vitest';
import { openDatabase } from '../../../host/store/sqlite/database.ts';
import { createOAuthStates, OAUTH_STATE_TTL_MS } from '../../../host/installations/oauth-state.ts';
import { createSqliteOAuthStateStore } from '../../../host/store/sqlite/oauth-states.ts';

function setup() {
  let now = 1_700_000_000_000;
  const states = createOAuthStates({
    store: createSqliteOAuthStateStore(openDatabase(':memory:')),
    secret: 'host-secret',
    now: () => now,
  });
  return { states, advance: (ms: number) => (now += ms) };
}

const reason = async (run: () => Promise<void>) => {
  try {
    await run();
  } catch (error) {
    return `${(error as { code: string }).code}: ${(error as Error).message}`;
  }
  return 'accepted';
};

describe('OAuth states', () => {
  it('are accepted once, by the installation they were issued to', async () => {
    const { states } = setup();
    const state = await states.issue('inst_a');
    expect(await reason(() => states.consume('inst_b', state))).toMatch(
      /ERR_OAUTH_STATE_INVALID: .*another installation/,
    );
    expect(await reason(() => states.consume('inst_a', state))).toBe('accepted');
    expect(await reason(() => states.consume('inst_a', state))).toMatch(/already used/);
  });

  it('expire after 10 minutes, not before', async () => {
    const { states, advance } = setup();
    const young = await states.issue('inst_a');
    const old = await states.issue('inst_a');
    advance(OAUTH_STATE_TTL_MS - 1);
    expect(await reason(() => states.consume('inst_a', young))).toBe('accepted');
    advance(1);
    expect(await reason(() => states.consume('inst_a', old))).toMatch(/expired/);
  });

  it('are unique and refuse any change to payload or signature', async () => {
    const { states } = setup();
    const state = await states.issue('inst_a');
    expect(await states.issue('inst_a')).not.toBe(state);
    const [payload, signature] = state.split('.');
    for (const forged of [
      `${payload}x.${signature}`,
      `${payload}.${signature.slice(1)}`,
      `${payload}`,
      `${payload}.${signature}.x`,
    ]) {
      expect(await reason(() => states.consume('inst_a', forged))).toMatch(/malformed|signature/);
    }
  });

  it('signed by another host secret are refused', async () => {
    const other = createOAuthStates({
      store: createSqliteOAuthStateStore(openDatabase(':memory:')),
      secret: 'other-secret',
      now: () => 0,
    });
    const { states } = setup();
    const foreign = await other.issue('inst_a');
    expect(await reason(() => states.consume('inst_a', foreign))).toMatch(/signature/);
  });
});

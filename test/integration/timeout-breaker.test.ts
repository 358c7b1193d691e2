// An integration that keeps running into its deadline burns a whole deadline of CPU per request;
// past a few timeouts in a window the host pauses it (503) for a cool-down, then lets it back.
// Waits are on conditions (the setup event logged, the pause lifted), never fixed sleeps.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestHost, endpointOf, waitFor, warmUp, type TestHost } from '../helpers/host.ts';

const COOLDOWN_MS = 1_500;
let host: TestHost;

beforeAll(async () => {
  host = await startTestHost({
    // Only the offender this test needs: with every hostile fixture, dozens of isolates start at
    // once and a busy machine can push setup events past their deadline, which counts too.
    dirs: ['fixtures/integrations', 'fixtures/hostile/infinite-loop'],
    limits: {
      dispatchTimeoutMs: 1_000,
      timeoutsBeforeCooldown: 2,
      timeoutWindowMs: 60_000,
      timeoutCooldownMs: COOLDOWN_MS,
    },
  });
  // Its installation_setup must be over (answered, not timed out) so the spins below are the only strikes.
  await waitFor(async () => (await host.services.listEvents('infinite-loop', { limit: 10 })).items.length > 0);
  expect(
    (await host.services.listEvents('infinite-loop', { limit: 10 })).items.map(
      (entry) => entry.errorCode ?? 'answered',
    ),
  ).toEqual(['answered']);
  await warmUp(`${endpointOf(host, 'infinite-loop')}?mode=ok`);
});
afterAll(() => host?.close());

describe('timeout breaker', () => {
  it(
    'pauses an integration after repeated timeouts, keeps neighbours serving, and lets it back after the ' +
      'cool-down',
    async () => {
      const spin = endpointOf(host, 'infinite-loop');
      expect((await fetch(spin)).status).toBe(504);
      const secondSent = performance.now();
      expect((await fetch(spin)).status).toBe(504);
      const paused = await fetch(`${spin}?mode=ok`);
      expect(paused.status).toBe(503);
      const body = await paused.json();
      expect(body.error.code).toBe('ERR_INTEGRATION_THROTTLED');
      expect(body.error.message).toMatch(/retry in \d+ s/);
      expect(host.logs.some((line) => line.includes('"infinite-loop" ran past its deadline 2 times'))).toBe(true);
      expect(await (await fetch(endpointOf(host, 'hello'), { method: 'POST' })).json()).toEqual({ received: true });

      // Poll until the pause lifts: every answer until then is the pause, and the first other one is served.
      let answer = 503;
      let lifted = 0;
      await (async () => {
        for (
          const started = performance.now();
          performance.now() - started < 30_000;
          await new Promise((resolve) => setTimeout(resolve, 100))
        ) {
          const response = await fetch(`${spin}?mode=ok`);
          answer = response.status;
          if (answer === 503) expect((await response.json()).error.code).toBe('ERR_INTEGRATION_THROTTLED');
          else {
            lifted = performance.now();
            await response.arrayBuffer();
            return;
          }
        }
      })();
      expect(answer).toBe(200);
      // The pause opened after the second timeout was sent, so it cannot have lifted sooner than this.
      expect(lifted - secondSent).toBeGreaterThanOrEqual(COOLDOWN_MS);
    },
  );
});

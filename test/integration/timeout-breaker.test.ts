// An integration that keeps running into its deadline burns a whole deadline of CPU per request;
// past a few timeouts in a window the host pauses it (503) for a cool-down, then lets it back.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestHost, endpointOf, type TestHost } from '../helpers/host.ts';

let host: TestHost;

beforeAll(async () => {
  host = await startTestHost({
    // Only the offender this test needs: with every hostile fixture, dozens of isolates start at
    // once and a busy machine can push setup events past the 300 ms deadline, which counts too.
    dirs: ['fixtures/integrations', 'fixtures/hostile/infinite-loop'],
    limits: { dispatchTimeoutMs: 300, timeoutsBeforeCooldown: 2, timeoutWindowMs: 60_000, timeoutCooldownMs: 1_500 },
  });
});
afterAll(() => host?.close());

describe('timeout breaker', () => {
  it('pauses an integration after repeated timeouts, keeps neighbours serving, and lets it back after the cool-down', async () => {
    const spin = endpointOf(host, 'infinite-loop');
    expect((await fetch(spin)).status).toBe(504);
    expect((await fetch(spin)).status).toBe(504);
    const paused = await fetch(`${spin}?mode=ok`);
    expect(paused.status).toBe(503);
    const body = await paused.json();
    expect(body.error.code).toBe('ERR_INTEGRATION_THROTTLED');
    expect(body.error.message).toMatch(/retry in \d+ s/);
    expect(host.logs.some((line) => line.includes('"infinite-loop" ran past its deadline 2 times'))).toBe(true);
    expect(await (await fetch(endpointOf(host, 'hello'), { method: 'POST' })).json()).toEqual({ received: true });
    await new Promise((resolve) => setTimeout(resolve, 1_600));
    expect((await fetch(`${spin}?mode=ok`)).status).toBe(200);
  });
});

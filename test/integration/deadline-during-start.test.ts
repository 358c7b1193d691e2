// The wall-clock deadline holds even when it passes while the isolate is still starting (a slow
// top level): the dispatch answers 504 and the isolate created late is thrown away, never used.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestHost, endpointOf, waitFor, type TestHost } from '../helpers/host.ts';

let host: TestHost;

beforeAll(async () => {
  host = await startTestHost({ dirs: ['test/fixtures/slow-start'], limits: { dispatchTimeoutMs: 1_000, timeoutsBeforeCooldown: 100 } });
  // The installation_setup dispatches (which never settle either) must be over first: while one
  // is in flight, its own deadline resets the isolate a request would share.
  const names = [900, 960, 990].map((ms) => `slow-start-${ms}`);
  await waitFor(async () => (await Promise.all(names.map((name) => host.services.listEvents(name, { limit: 10 })))).every((page) => page.items.length > 0), 15_000);
});
afterAll(() => host?.close());

describe('deadline during isolate start-up', () => {
  for (const ms of [900, 960, 990]) {
    it(`answers 504 within the deadline when the top level takes ${ms} ms and the handler never settles`, async () => {
      for (let round = 0; round < 2; round++) {
        const started = Date.now();
        const response = await fetch(endpointOf(host, `slow-start-${ms}`), { signal: AbortSignal.timeout(8_000) });
        expect(response.status).toBe(504);
        expect((await response.json()).error.code).toBe('ERR_SANDBOX_TIMEOUT');
        expect(Date.now() - started).toBeLessThan(4_000);
      }
    }, 30_000);
  }
});

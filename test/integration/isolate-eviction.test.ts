// Isolates are created lazily and the least recently used idle one is disposed when a worker
// passes its cap, so a host can load many more integrations than it keeps alive.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestHost, endpointOf, waitFor, type TestHost } from '../helpers/host.ts';

let host: TestHost;

beforeAll(async () => {
  host = await startTestHost({ dirs: ['test/fixtures/eviction'], workers: 1, limits: { maxLiveIsolatesPerWorker: 1 } });
  // Installing dispatches installation_setup in the background; let those land first so they
  // cannot create isolates in the middle of the sequence below.
  await waitFor(async () =>
    (
      await Promise.all(
        ['module-counter-a', 'module-counter-b'].map((name) => host.services.listEvents(name, { limit: 10 })),
      )
    ).every((page) => page.items.length > 0),
  );
});
afterAll(() => host?.close());

async function served(name: string): Promise<number> {
  return (await (await fetch(endpointOf(host, name))).json()).served;
}

describe('isolate eviction', () => {
  it('keeps an isolate while it is the only one, then evicts the least recently used for a newcomer', async () => {
    expect(await served('module-counter-a')).toBe(1);
    expect(await served('module-counter-a')).toBe(2);
    // b needs an isolate: a (idle, least recently used) is disposed to stay within the cap of 1.
    expect(await served('module-counter-b')).toBe(1);
    // a comes back in a fresh isolate: its module state starts over.
    expect(await served('module-counter-a')).toBe(1);
  });
});

// A guest answering at once but handing context.waitUntil work that never ends (a promise that
// never settles, an endless timer loop, a CPU loop after the response): the response is not held
// up, and past the waitUntil limit the isolate is reset with a host log line; nothing of the
// endless work survives into the fresh isolate, and the host and a neighbour answer throughout.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestHost, endpointOf, newestEvent, waitFor, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy, neighbourAnswers } from '../helpers/host-health.ts';

const WAIT_UNTIL_MS = 1_000;
let host: TestHost;

const resets = () =>
  host.logs.filter(
    (line) =>
      line.includes('[unbounded-wait-until') &&
      line.includes(`waitUntil work still running after ${WAIT_UNTIL_MS} ms: the isolate was reset`),
  ).length;

async function count(): Promise<number> {
  return ((await (await fetch(`${endpointOf(host, 'unbounded-wait-until')}?mode=count`)).json()) as { ticks: number })
    .ticks;
}

/** Starts the mode, checks the answer came at once, and waits for the reset it must cause. */
async function runUntilReset(mode: string): Promise<void> {
  const before = resets();
  const response = await fetch(`${endpointOf(host, 'unbounded-wait-until')}?mode=${mode}`);
  expect(response.status).toBe(200);
  // The answer did not wait for the endless work: it came before the reset that ends it, and the
  // worker's own measure of the dispatch is within the waitUntil limit.
  expect(resets()).toBe(before);
  const logged = await newestEvent(host, 'unbounded-wait-until');
  expect(logged.status).toBe(200);
  expect(logged.durationMs).toBeLessThan(WAIT_UNTIL_MS);
  await waitFor(() => resets() > before);
}

beforeAll(async () => {
  host = await startTestHost({
    dirs: ['fixtures/integrations', 'fixtures/hostile'],
    limits: { waitUntilTimeoutMs: WAIT_UNTIL_MS, dispatchTimeoutMs: 2_000, memoryLimitMb: 64 },
  });
  // Warm the isolate, so the first attack's answer time is not its cold start.
  expect(await count()).toBe(0);
});
afterAll(() => host?.close());

describe('unbounded waitUntil', () => {
  it('with a promise that never settles: answered at once, isolate reset past the limit', async () => {
    await runUntilReset('hang');
    expect(await count()).toBe(0);
  });

  it('with an endless timer loop: reset, and the fresh isolate does not tick', async () => {
    await runUntilReset('tick');
    expect(await count()).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await count()).toBe(0);
  });

  it('with a CPU loop after the response: reset while the neighbour keeps answering', async () => {
    const done = runUntilReset('spin');
    await new Promise((resolve) => setTimeout(resolve, 100));
    const during = await neighbourAnswers(host);
    await done;
    expect(during.status).toBe(200);
    expect(await count()).toBe(0);
  });

  it('leaves the host and its neighbour answering', async () => {
    await expectHostHealthy(host);
  });
});

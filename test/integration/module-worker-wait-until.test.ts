// ctx.waitUntil of a module worker through the real host: the work outlives the answer and
// finishes, and work that never ends is cut at the host's waitUntil limit (the isolate is reset
// with a host log line), the same limit sandbox-api integrations get.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestHost, endpointOf, waitFor, type TestHost } from '../helpers/host.ts';

const WAIT_UNTIL_MS = 1_000;
let host: TestHost;

beforeAll(async () => {
  host = await startTestHost({ dirs: ['test/fixtures/module-worker'], limits: { waitUntilTimeoutMs: WAIT_UNTIL_MS } });
});
afterAll(() => host?.close());

const lines = (text: string) => host.logs.filter((line) => line.includes('[late-worker') && line.includes(text)).length;

describe("a module worker's ctx.waitUntil", () => {
  it('runs after the answer and finishes', async () => {
    const response = await fetch(`${endpointOf(host, 'late-worker')}?mode=later`);
    expect(await response.json()).toEqual({ answered: 'later' });
    expect(lines('late work done')).toBe(0);
    await waitFor(() => lines('late work done') === 1, 5_000);
  });

  it('is cut at the waitUntil limit when it never settles, and the worker answers again afterwards', async () => {
    const started = Date.now();
    const response = await fetch(`${endpointOf(host, 'late-worker')}?mode=hang`);
    expect(await response.json()).toEqual({ answered: 'hang' });
    expect(Date.now() - started).toBeLessThan(WAIT_UNTIL_MS);
    await waitFor(
      () => lines(`waitUntil work still running after ${WAIT_UNTIL_MS} ms: the isolate was reset`) === 1,
      5_000,
    );
    expect(await (await fetch(`${endpointOf(host, 'late-worker')}?mode=now`)).json()).toEqual({ answered: 'now' });
  });
});

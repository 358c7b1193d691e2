// A guest flooding an (allowed) destination from one event: the first 50 fetches go out, the 51st
// and every later one fail inside the isolate with a TypeError naming the cap, sequentially or all
// at once; the receiver sees exactly 50 requests, the host logs the cap once per event, and the
// next event gets a fresh allowance.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestHost, endpointOf, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';
import { startReceiver, type Receiver } from '../helpers/receivers.ts';

let host: TestHost;
let receiver: Receiver;

async function flood(
  count: number,
  parallel = false,
): Promise<{ succeeded: number; firstFailureAt: number; firstFailure: string | null }> {
  const query = new URLSearchParams({
    count: String(count),
    target: `${receiver.url}/hit`,
    parallel: parallel ? '1' : '0',
  });
  const response = await fetch(`${endpointOf(host, 'fetch-flood')}?${query}`);
  expect(response.status).toBe(200);
  return response.json();
}

beforeAll(async () => {
  receiver = await startReceiver('hit');
  host = await startTestHost({
    dirs: ['fixtures/integrations', 'fixtures/hostile'],
    allowEgress: [`127.0.0.1:${receiver.port}`],
  });
});
afterAll(async () => {
  await host?.close();
  await receiver?.close();
});

describe('fetch flood beyond the per-event cap', () => {
  it('lets 50 fetches out; the 51st fails with a TypeError naming the cap', async () => {
    const outcome = await flood(80);
    expect(outcome).toEqual({
      succeeded: 50,
      firstFailureAt: 51,
      firstFailure: 'TypeError: fetch failed: fetch limit reached (50 per event)',
    });
    expect(receiver.hits).toHaveLength(50);
  });

  it('logs the cap once for the event, not once per refused fetch', () => {
    expect(
      host.logs.filter(
        (line) =>
          line.includes('[fetch-flood') &&
          line.includes('fetch refused: the limit of 50 fetches per event was reached'),
      ),
    ).toHaveLength(1);
  });

  it('gives the next event a fresh allowance', async () => {
    expect((await flood(5)).succeeded).toBe(5);
  });

  it('caps a parallel flood the same way', async () => {
    const before = receiver.hits.length;
    const outcome = await flood(200, true);
    expect(outcome.succeeded).toBe(50);
    expect(outcome.firstFailure).toBe('TypeError: fetch failed: fetch limit reached (50 per event)');
    expect(receiver.hits.length - before).toBe(50);
  });

  it('leaves the host and its neighbour answering', async () => {
    await expectHostHealthy(host);
  });
});

// Live isolates are bounded by a memory budget (limits.isolateMemoryMb, split over the workers),
// not a count: the least recently used idle isolates are disposed by size to make room. When a
// worker has had to evict, a cold integration starts on a worker with room instead, so the host's
// whole budget is used before anything thrashes.
import { describe, it, expect, afterEach } from 'vitest';
import { startTestHost, endpointOf, waitFor, type TestHost } from '../helpers/host.ts';

const BALLAST = ['placement-p1-ballast', 'placement-p3-ballast', 'placement-p5-ballast'];
const ALL = [...BALLAST, 'placement-p2-small', 'placement-p4-small'];
let host: TestHost | undefined;

afterEach(async () => {
  await host?.close();
  host = undefined;
});

async function start(workers: number, isolateMemoryMb: number): Promise<TestHost> {
  host = await startTestHost({ dirs: ['test/fixtures/placement'], workers, limits: { isolateMemoryMb } });
  // Installing dispatches installation_setup in the background (one isolate each); let those land
  // first so they cannot create or evict isolates in the middle of the sequences below.
  const started = host;
  await waitFor(
    async () =>
      (await Promise.all(ALL.map((name) => started.services.listEvents(name, { limit: 10 })))).every(
        (page) => page.items.length > 0,
      ),
    20_000,
  );
  return started;
}

async function served(name: string): Promise<number> {
  const response = await fetch(endpointOf(host!, name));
  expect(response.status).toBe(200);
  return (await response.json()).served;
}

describe('isolate memory budget', () => {
  it('disposes the least recently used idle isolates by size once the budget is spent', async () => {
    await start(1, 40);
    const first = await served('placement-p1-ballast');
    expect(await served('placement-p1-ballast')).toBe(first + 1);
    // Two more isolates of about 20 MB each do not fit beside it in 40 MB: p1, least recently used, goes.
    await served('placement-p3-ballast');
    await served('placement-p5-ballast');
    // Whether the worker trimmed what the setup events started before this sequence or only once
    // their measurements land, within 40 MB it ends with the two most recently used ballasts.
    await waitFor(() => host!.supervisor.liveIsolateCounts()[0] === 2, 10_000);
    expect(await served('placement-p1-ballast')).toBe(1);
  });

  it('keeps them all live when the budget allows it', async () => {
    await start(1, 1_000);
    const first = await served('placement-p1-ballast');
    await served('placement-p3-ballast');
    await served('placement-p5-ballast');
    expect(await served('placement-p1-ballast')).toBe(first + 1);
  });

  it('starts a cold integration on a worker with room once its own has had to evict, so nothing thrashes', async () => {
    const started = await start(2, 100);
    // Pinned by count: p1, p3 and p5 (16 MB each) share worker 0, whose 50 MB hold only two of them.
    expect(BALLAST.map((name) => started.supervisor.workerOf(name))).toEqual([0, 0, 0]);
    // Their setup events started all three; once measured, worker 0 evicts one to fit.
    await waitFor(() => started.supervisor.liveIsolateCounts()[0] === 2, 10_000);
    const round = async () => {
      const counts: string[] = [];
      for (const name of BALLAST) counts.push(`${name}: ${await served(name)}`);
      return counts;
    };
    await round();
    const second = await round();
    // All three stayed live: every count went up by one (a thrashing worker would restart them at 1).
    expect(await round()).toEqual(second.map((line) => line.replace(/\d+$/, (count) => String(Number(count) + 1))));
    expect(BALLAST.map((name) => started.supervisor.workerOf(name)).sort()).toEqual([0, 0, 1]);
  });
});

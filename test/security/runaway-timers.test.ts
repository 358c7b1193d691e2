// A guest leaving timers behind after its response: a 1 ms interval that burns CPU on every tick,
// and 20,000 pending timers. Timers only run while the integration has work in flight, so they are
// dropped when it goes idle: the tick counter stops, its worker process burns no CPU afterwards
// (so its neighbours lose none), and 20,000 timers make two log lines (a cap at 10,000 and one
// "dropped"), none of them firing once the integration is idle. No step relies on how fast the
// machine is: reads wait until the counter has settled, and every timer is accounted for.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { startTestHost, endpointOf, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy, neighbourAnswers } from '../helpers/host-health.ts';

const DROPPED =
  /\[runaway-timers[^\]]*\] warn: (\d+) timer\(s\) still pending when the integration finished its work: dropped/;
let host: TestHost;

async function ticks(mode = 'count'): Promise<number> {
  const response = await fetch(`${endpointOf(host, 'runaway-timers')}?mode=${mode}`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { ticks: number }).ticks;
}

const droppedLines = () => host.logs.filter((line) => DROPPED.test(line));

/**
 * The counter once no timer is left: a read is itself a dispatch, so a tick already on its way into
 * the isolate may re-arm while it is in flight, and is then dropped again when it ends (a new
 * "dropped" line). A read after which nothing was dropped leaves nothing that can ever fire.
 * (The worker sends the "dropped" line before the answer, so it is logged by the time we read.)
 */
async function settledTicks(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const dropsBefore = droppedLines().length;
    const value = await ticks();
    if (droppedLines().length === dropsBefore) return value;
  }
  throw new Error('the integration kept timers pending after every read');
}

/** CPU seconds a process has used (Linux /proc; null elsewhere). */
function cpuSeconds(pid: number): number | null {
  const file = `/proc/${pid}/stat`;
  if (!existsSync(file)) return null;
  const stat = readFileSync(file, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

beforeAll(async () => {
  host = await startTestHost({ dirs: ['fixtures/integrations', 'fixtures/hostile'] });
});
afterAll(() => host?.close());

describe('timers that keep running after the response', () => {
  it('stop when the integration goes idle: the counter does not move and the worker burns no CPU', async () => {
    await ticks('start');
    const pid = host.supervisor.workerPid(host.supervisor.workerOf('runaway-timers')!);
    const atStart = await settledTicks();
    const cpuBefore = cpuSeconds(pid);
    // Time for a surviving interval to show: it would tick ~50 times a second, 20 ms of CPU each.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const cpuAfter = cpuSeconds(pid);
    expect(await ticks()).toBe(atStart);
    if (cpuBefore !== null && cpuAfter !== null) expect(cpuAfter - cpuBefore).toBeLessThan(0.3);
    expect((await neighbourAnswers(host)).status).toBe(200);
  });

  it(
    'turn 20,000 abandoned timers into two log lines, and ' + 'none of them fires once the integration is idle',
    async () => {
      const before = host.logs.length;
      const atResponse = await ticks('flood');
      const atIdle = await settledTicks();
      // Each flood timer adds 1,000,000. One due while the flood dispatch was still in flight (a slow
      // machine) may run; every other pending one was dropped when the integration went idle.
      const fired = (atIdle - atResponse) / 1_000_000;
      expect(Number.isInteger(fired) && fired >= 0).toBe(true);
      const lines = host.logs.slice(before).filter((line) => line.includes('[runaway-timers'));
      // The cap is on pending timers: the 10,000th pending one made the rest be ignored (one line) ...
      expect(
        lines.filter((line) => line.includes('setTimeout ignored: 10000 timers are already pending')),
      ).toHaveLength(1);
      // ... and what was pending when the integration went idle was dropped (one line), at most the cap.
      const drops = lines.filter((line) => DROPPED.test(line));
      expect(drops).toHaveLength(1);
      const dropped = Number(DROPPED.exec(drops[0])![1]);
      expect(dropped).toBeLessThanOrEqual(10_000);
      // Every accepted timer either fired while the flood dispatch was in flight or was dropped: at
      // least the cap was accepted, and at most all 20,000 (one that fired freed its place).
      expect(dropped + fired).toBeGreaterThanOrEqual(10_000);
      expect(dropped + fired).toBeLessThanOrEqual(20_000);
      // The first of them was due 1 s after it was set: had any survived the drop, it would be due by
      // now, and one firing while idle is logged and dropped; none may be.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(await ticks()).toBe(atIdle);
      const all = host.logs.slice(before).filter((line) => line.includes('[runaway-timers'));
      expect(all.filter((line) => line.includes('fired after the integration finished its work'))).toEqual([]);
      expect(all.length).toBeLessThan(10);
    },
  );

  it('leaves the host and its neighbour answering', async () => {
    await expectHostHealthy(host);
  });
});

// A guest leaving timers behind after its response: a 1 ms interval that burns CPU on every tick,
// and 20,000 pending timers. Timers only run while the integration has work in flight, so they are
// dropped when it goes idle: the tick counter stops, its worker process burns no CPU afterwards,
// 20,000 timers make two log lines (a cap at 10,000 and one "dropped"), and a neighbour's latency
// is unaffected.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { startTestHost, endpointOf, waitFor, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy, neighbourAnswers } from '../helpers/host-health.ts';

let host: TestHost;

async function ticks(mode = 'count'): Promise<number> {
  const response = await fetch(`${endpointOf(host, 'runaway-timers')}?mode=${mode}`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { ticks: number }).ticks;
}

/** CPU seconds a process has used (Linux /proc; null elsewhere). */
function cpuSeconds(pid: number): number | null {
  const file = `/proc/${pid}/stat`;
  if (!existsSync(file)) return null;
  const fields = readFileSync(file, 'utf8').slice(readFileSync(file, 'utf8').lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function medianNeighbourMs(samples = 15): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < samples; i++) times.push((await neighbourAnswers(host)).ms);
  return times.sort((a, b) => a - b)[Math.floor(samples / 2)];
}

beforeAll(async () => {
  host = await startTestHost({ dirs: ['fixtures/integrations', 'fixtures/hostile'] });
});
afterAll(() => host?.close());

describe('timers that keep running after the response', () => {
  it('stop when the integration goes idle: the counter does not move and the worker burns no CPU', async () => {
    const baseline = await medianNeighbourMs();
    await ticks('start');
    const pid = host.supervisor.workerPid(host.supervisor.workerOf('runaway-timers')!);
    // A tick already handed to the isolate when the response left may still run once; then nothing.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const cpuBefore = cpuSeconds(pid);
    const atStart = await ticks();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const cpuAfter = cpuSeconds(pid);
    expect(await ticks()).toBe(atStart);
    // Had the interval kept running, 20 ms of every ~21 ms would have been spent spinning.
    if (cpuBefore !== null && cpuAfter !== null) expect(cpuAfter - cpuBefore).toBeLessThan(0.3);
    expect(await medianNeighbourMs()).toBeLessThan(baseline * 3 + 100);
  });

  it('turn 20,000 abandoned timers into two log lines, and none of them fires once dropped', async () => {
    const before = host.logs.length;
    const atFlood = await ticks('flood');
    await waitFor(() => host.logs.slice(before).some((line) => line.includes('timer(s) still pending when the integration finished its work: dropped')));
    // On a busy machine, setting 10,000 timers can take longer than the first one's 1 s delay, so
    // a few may legitimately run while the request is still in flight; what counts is after the drop.
    const atStart = await ticks();
    expect(atStart - atFlood).toBeLessThan(10_000 * 1_000_000);
    // The remaining ones were due within 1 s of one another: had any survived, some would fire now.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const lines = host.logs.slice(before).filter((line) => line.includes('[runaway-timers'));
    expect(lines.some((line) => line.includes('setTimeout ignored: 10000 timers are already pending'))).toBe(true);
    expect(lines.some((line) => line.includes('10000 timer(s) still pending when the integration finished its work: dropped'))).toBe(true);
    expect(lines.length).toBeLessThan(10);
    expect(await ticks()).toBe(atStart);
  });

  it('leaves the host and its neighbour answering', async () => {
    await expectHostHealthy(host);
  });
});

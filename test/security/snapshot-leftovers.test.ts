// Every isolate is made from the runtime's startup snapshot, built once per worker. Two
// integrations on one worker (so from the same snapshot) look for what that could leave a guest:
// the bootstrap global that binds the worker's primitives, the globals V8 puts back into every
// context made from a snapshot, any reachable built-in or runtime object still unfrozen, state the
// other isolate left, and a Math.random sequence shared with it.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestHost, endpointOf, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';

let host: TestHost;
let reports: { bootstrap: string; removed: string[]; leftBehind: string; unfrozen: string[]; random: number }[];

beforeAll(async () => {
  host = await startTestHost({ dirs: ['fixtures/integrations', 'test/fixtures/snapshot-probe'], workers: 1 });
  reports = [];
  for (const name of ['snapshot-probe-a', 'snapshot-probe-b'])
    reports.push(await (await fetch(endpointOf(host, name))).json());
});
afterAll(() => host?.close());

describe('snapshot leftovers', () => {
  it('runs both probes on one worker, so from one snapshot', () => {
    expect(host.supervisor.workerOf('snapshot-probe-a')).toBe(host.supervisor.workerOf('snapshot-probe-b'));
  });

  it('leaves no bootstrap and, of the globals V8 puts back, only SharedArrayBuffer (frozen below)', () => {
    for (const report of reports) {
      expect(report.bootstrap).toBe('undefined');
      expect(report.removed).toEqual(['function', 'undefined', 'undefined']);
    }
  });

  it('leaves nothing reachable unfrozen but the global object and console', () => {
    for (const report of reports) expect(report.unfrozen).toEqual([]);
  });

  it('shares no state and no random sequence between isolates made from the same snapshot', () => {
    for (const report of reports) expect(report.leftBehind).toBe('undefined');
    expect(reports[0].random).not.toBe(reports[1].random);
  });

  it('leaves the host and its neighbour answering', async () => {
    await expectHostHealthy(host);
  });
});

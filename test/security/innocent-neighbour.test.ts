// A worker that dies with several integrations at work cannot say which one killed it. None is
// counted against: each moves to a worker of its own, where its next crash is its own. The killer
// is quarantined after three crashes it alone was at work for; the innocent neighbour that was in
// flight with it the first time is never quarantined, keeps answering, and returns to a regular
// worker after its probation. (The death is a SIGKILL, as in worker-crash.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointOf, startTestHost, waitFor, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';

let host: TestHost;
const ATTACKER = 'infinite-loop';
const INNOCENT = 'patient';

beforeAll(async () => {
  // One regular worker: the attacker and the innocent share it.
  host = await startTestHost({
    dirs: ['fixtures/integrations', 'fixtures/hostile', 'test/fixtures/neighbours'],
    workers: 1,
    limits: {
      solitaryProbationMs: 4_000,
      maxSolitaryWorkers: 2,
      dispatchTimeoutMs: 30_000,
      timeoutsBeforeCooldown: 100,
    },
  });
});
afterAll(() => host?.close());

const pidOf = (integration: string): number => {
  const index = host.supervisor.workerOf(integration)!;
  return host.supervisor.workerPid(index);
};

describe('a crash with several integrations at work', () => {
  it('counts against none of them and gives each a worker of its own', async () => {
    expect(host.supervisor.workerOf(ATTACKER)).toBe(host.supervisor.workerOf(INNOCENT));
    const pid = pidOf(ATTACKER);
    const innocent = fetch(`${endpointOf(host, INNOCENT)}?ms=20000`);
    const attack = fetch(endpointOf(host, ATTACKER));
    await waitFor(() => host.supervisor.inFlightCount() === 2);
    process.kill(pid, 'SIGKILL');
    expect((await attack).status).toBe(502);
    expect((await innocent).status).toBe(502);
    await waitFor(() => host.supervisor.isSolitary(ATTACKER) && host.supervisor.isSolitary(INNOCENT));
    expect(host.supervisor.workerOf(ATTACKER)).not.toBe(host.supervisor.workerOf(INNOCENT));
    expect(host.logs.some((line) => line.includes('cannot be pinned on one of'))).toBe(true);
  }, 90_000);

  it('quarantines the killer after three crashes it alone was at work for', async () => {
    for (let crash = 1; crash <= 3; crash++) {
      const attack = fetch(endpointOf(host, ATTACKER));
      await waitFor(() => host.supervisor.inFlightCount(ATTACKER) >= 1);
      // Read once its dispatch is in flight: on a busy machine a restart can outlast the 4 s
      // probation, which sends the killer back to a regular worker before it attacks again.
      const pid = pidOf(ATTACKER);
      process.kill(pid, 'SIGKILL');
      expect((await attack).status).toBe(502);
      if (crash < 3) await waitFor(() => pidOf(ATTACKER) !== pid);
    }
    const quarantined = await fetch(`${endpointOf(host, ATTACKER)}?mode=ok`);
    expect(quarantined.status).toBe(503);
    expect((await quarantined.json()).error.code).toBe('ERR_INTEGRATION_QUARANTINED');
    // Three worker restarts: a bound for a busy machine, not an expectation.
  }, 120_000);

  it('never quarantines the innocent neighbour, which answers and returns to a regular worker', async () => {
    expect(host.supervisor.isQuarantined(INNOCENT)).toBe(false);
    const answer = await fetch(endpointOf(host, INNOCENT));
    expect(answer.status).toBe(200);
    expect(await answer.text()).toBe('patient');
    await waitFor(() => !host.supervisor.isSolitary(INNOCENT));
    expect(host.supervisor.workerOf(INNOCENT)).toBe(0);
    expect((await fetch(endpointOf(host, INNOCENT))).status).toBe(200);
    await expectHostHealthy(host);
  }, 90_000);
});

// A sandbox worker process that dies (as V8 does on a fatal out-of-memory or a native crash) is
// restarted; the requests it had in flight get 502 ERR_SANDBOX_CRASHED without internals; a
// neighbour on another worker never notices; and an integration in flight during three deaths
// within a minute is quarantined (503) until the host restarts. The death is simulated with
// SIGKILL so the test does not depend on which guest allocation happens to abort V8.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestHost, endpointOf, waitFor, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';

let host: TestHost;

beforeAll(async () => {
  host = await startTestHost({ dirs: ['fixtures/integrations', 'fixtures/hostile'] });
});
afterAll(() => host?.close());

function workerPidOf(integration: string): number {
  return host.supervisor.workerPid(host.supervisor.workerOf(integration) ?? -1);
}

describe('a sandbox worker that dies mid-request', () => {
  it('answers 502, restarts the worker, keeps neighbours ' +
    'answering, and quarantines after the third death', async () => {
    const attacker = 'infinite-loop';
    const neighbour = ['hello', 'counter', 'event-log'].find(
      (name) => host.supervisor.workerOf(name) !== host.supervisor.workerOf(attacker),
    );
    expect(neighbour).toBeDefined();
    const probe = async () => (await fetch(endpointOf(host, neighbour!), { method: 'POST' })).status;

    for (let death = 1; death <= 3; death++) {
      const pid = workerPidOf(attacker);
      const inFlight = fetch(endpointOf(host, attacker));
      // Killed once the dispatch is with the worker (not before it got there, whatever the load).
      await waitFor(() => host.supervisor.inFlightCount(attacker) > 0);
      process.kill(pid, 'SIGKILL');
      const response = await inFlight;
      expect(response.status).toBe(502);
      const body = await response.json();
      expect(body.error.code).toBe('ERR_SANDBOX_CRASHED');
      expect(body.error.message).not.toMatch(/SIGKILL|pid|\/work\//);
      expect(await probe()).toBeLessThan(500);
      await waitFor(() => workerPidOf(attacker) !== pid);
      if (death < 3) {
        // The integration itself recovers on the restarted worker until it is quarantined.
        expect((await fetch(`${endpointOf(host, attacker)}?mode=ok`)).status).toBe(200);
      }
    }

    const quarantined = await fetch(`${endpointOf(host, attacker)}?mode=ok`);
    expect(quarantined.status).toBe(503);
    expect((await quarantined.json()).error.code).toBe('ERR_INTEGRATION_QUARANTINED');
    expect(host.logs.some((line) => /sandbox worker \d died \(signal SIGKILL\)/.test(line))).toBe(true);
    // Integrations sharing the restarted worker are served again by it.
    const sharing = ['hello', 'counter', 'event-log', 'heap-growth', 'huge-allocation', 'loop-after-await'].find(
      (name) => host.supervisor.workerOf(name) === host.supervisor.workerOf(attacker),
    );
    // hello answers POST itself; the others have no fetch handler or need ?mode=ok (anything under 500 is served).
    if (sharing === 'hello') expect((await fetch(endpointOf(host, 'hello'), { method: 'POST' })).status).toBe(200);
    else if (sharing) expect((await fetch(`${endpointOf(host, sharing)}?mode=ok`)).status).toBeLessThan(500);
    expect(await (await fetch(`${host.url}/health`)).json()).toEqual({ status: 'ok' });
  }, 60_000);
});

describe('afterwards', () => {
  it('leaves the host and its neighbour answering', async () => {
    await expectHostHealthy(host);
  });
});

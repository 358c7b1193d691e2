// On the offenders' workers the host answers 504 at the deadline itself instead of waiting for the
// worker, which may be starved; the worker's verdict still decides what counts and fills the
// event's row. The worker is stopped (SIGSTOP) to stand for a starved one: only the host can answer.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestHost, endpointOf, waitFor, warmUp, type TestHost } from '../helpers/host.ts';

let host: TestHost;
const BACKSTOP_NOTICE = 'did not answer a dispatch of "flaky"';

beforeAll(async () => {
  host = await startTestHost({
    dirs: ['test/fixtures/lifecycle'],
    env: { ...process.env, SETTINGS_DEMO_API_KEY: 'x' },
    // Three counted timeouts pause it: the first below, one per stopped-worker test after it.
    limits: {
      dispatchTimeoutMs: 1_000,
      timeoutsBeforeCooldown: 3,
      timeoutWindowMs: 600_000,
      timeoutCooldownMs: 600_000,
    },
    // Injected so that `flaky` stays on the nice-19 worker (no CPU to spare: no SCHED_IDLE move).
    machineSaturated: () => true,
  });
  // Its installation_setup first (406: flaky has no handler), so the timeouts below are its only ones.
  await waitFor(async () => (await host.services.listEvents('flaky', { limit: 1 })).items.length > 0);
  // Its first timeout, on a regular worker, moves it to the offenders' worker; a live isolate there.
  expect((await fetch(`${endpointOf(host, 'flaky')}?mode=loop`)).status).toBe(504);
  expect(host.supervisor.workerOf('flaky')).toBe(host.supervisor.offenderWorker);
  await warmUp(`${endpointOf(host, 'flaky')}?mode=log`);
});
afterAll(() => host?.close());

/** Runs `during` with the worker running `flaky` stopped, and continues it whatever happens. */
async function withWorkerStopped<T>(during: () => Promise<T>): Promise<T> {
  const pid = host.supervisor.workerPid(host.supervisor.workerOf('flaky')!);
  process.kill(pid, 'SIGSTOP');
  try {
    return await during();
  } finally {
    process.kill(pid, 'SIGCONT');
  }
}

describe("the deadline on the offenders' workers", () => {
  it(
    'answers 504 at the deadline while the worker cannot, and ' + "the event's row gets the lines logged before it",
    async () => {
      const listed = await withWorkerStopped(async () => {
        const response = await fetch(`${endpointOf(host, 'flaky')}?mode=loop`);
        expect(response.status).toBe(504);
        expect((await response.json()).error.code).toBe('ERR_SANDBOX_TIMEOUT');
        // Asked while the worker is still stopped: a read waits for the row still on its way.
        return { listed: host.services.listEvents('flaky', { limit: 1 }) };
      });
      const [row] = (await listed.listed).items;
      expect(row).toMatchObject({ type: 'fetch', status: 504, errorCode: 'ERR_SANDBOX_TIMEOUT' });
      expect(row.logs.map((line) => line.text)).toContain('about to spin');
      // The host's own deadline answered, not the backstop for a silent worker (deadline + 5 s).
      expect(host.logs.some((line) => line.includes(BACKSTOP_NOTICE))).toBe(false);
    },
  );

  it('drops an answer that arrives after the 504 and tells the author, counting nothing', async () => {
    // The spin above disposed its isolate: a live one first, so the late answer is the guest's own
    // (a realm built on the offenders' throttled threads could itself outlast the deadline).
    await warmUp(`${endpointOf(host, 'flaky')}?mode=log`);
    await withWorkerStopped(async () => {
      expect((await fetch(`${endpointOf(host, 'flaky')}?mode=log&n=late`)).status).toBe(504);
    });
    await host.supervisor.verdictsArrived('flaky');
    const [row] = (await host.services.listEvents('flaky', { limit: 1 })).items;
    expect(row).toMatchObject({ status: 504, errorCode: 'ERR_SANDBOX_TIMEOUT' });
    expect(row.logs.map((line) => line.text)).toContain('request late');
    expect(
      host.logs.some((line) => line.includes('after the host had answered 504 at its deadline of 1000 ms: dropped')),
    ).toBe(true);
    // Not a timeout of its own: it still answers (two of three counted so far).
    expect((await fetch(`${endpointOf(host, 'flaky')}?mode=log`)).status).toBe(200);
  });

  it(
    'answers the next request by its own deadline while the verdict on the last one cannot arrive, neither running ' +
      'nor counting it',
    async () => {
      await warmUp(`${endpointOf(host, 'flaky')}?mode=log`);
      await withWorkerStopped(async () => {
        // Answered by the host at its deadline; the stopped worker's verdict on it cannot come.
        expect((await fetch(`${endpointOf(host, 'flaky')}?mode=log&n=held`)).status).toBe(504);
        const next = await fetch(`${endpointOf(host, 'flaky')}?mode=log&n=never`);
        expect(next.status).toBe(504);
        expect((await next.json()).error.code).toBe('ERR_SANDBOX_TIMEOUT');
        // Answered before the first one's backstop (its deadline + 5 s): by its own deadline, from its arrival.
        expect(host.logs.some((line) => line.includes(BACKSTOP_NOTICE))).toBe(false);
      });
      await host.supervisor.verdictsArrived('flaky');
      expect(
        host.logs.some(
          (line) =>
            line.includes('while the verdict on its previous request was still on its way') &&
            line.includes('not counted as its timeout'),
        ),
      ).toBe(true);
      // Never dispatched: its line is in no row.
      const rows = (await host.services.listEvents('flaky', { limit: 3 })).items;
      expect(rows.flatMap((row) => row.logs.map((line) => line.text))).toContain('request held');
      expect(rows.flatMap((row) => row.logs.map((line) => line.text))).not.toContain('request never');
      // Neither counted: it still answers (two of three counted so far).
      expect((await fetch(`${endpointOf(host, 'flaky')}?mode=log`)).status).toBe(200);
    },
  );

  it("holds the integration's next request for the worker's verdict on the last one, which pauses it", async () => {
    await warmUp(`${endpointOf(host, 'flaky')}?mode=log`);
    await withWorkerStopped(async () => {
      expect((await fetch(`${endpointOf(host, 'flaky')}?mode=loop`)).status).toBe(504);
      // Sent while the verdict on the spin (the third counted timeout) cannot arrive: held, then
      // answered at its own deadline without running.
      expect((await fetch(`${endpointOf(host, 'flaky')}?mode=log&n=held-for-pause`)).status).toBe(504);
    });
    await host.supervisor.verdictsArrived('flaky');
    const answer = await fetch(`${endpointOf(host, 'flaky')}?mode=log`);
    expect(answer.status).toBe(503);
    expect((await answer.json()).error.code).toBe('ERR_INTEGRATION_THROTTLED');
    const rows = (await host.services.listEvents('flaky', { limit: 3 })).items;
    expect(rows.flatMap((row) => row.logs.map((line) => line.text))).not.toContain('request held-for-pause');
    expect(host.logs.some((line) => line.includes(BACKSTOP_NOTICE))).toBe(false);
  });
});

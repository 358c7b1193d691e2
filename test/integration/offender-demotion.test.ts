// An integration that runs past its deadline is moved to a separate low-priority worker, so it
// competes for CPU only with other offenders; well-behaved integrations never land there.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { startTestHost, endpointOf, waitFor, warmUp, type TestHost } from '../helpers/host.ts';

let host: TestHost;

beforeAll(async () => {
  // Only the offenders this test needs: with every hostile fixture, dozens of isolates start at
  // once and a busy machine can push the neighbours' own setup events past their deadline.
  host = await startTestHost({ dirs: ['fixtures/integrations', 'fixtures/hostile/infinite-loop', 'fixtures/hostile/heap-growth'], limits: { dispatchTimeoutMs: 1_000 } });
  // The installation_setup dispatches of the start-up must be over, none of them a timeout.
  await waitFor(async () => (await Promise.all(['hello', 'counter', 'infinite-loop'].map((name) => host.services.listEvents(name, { limit: 10 })))).every((page) => page.items.length > 0));
  await warmUp(`${endpointOf(host, 'infinite-loop')}?mode=ok`);
});
afterAll(() => host?.close());

/** The nice value of a process or thread, from /proc (field 19 of stat). */
function niceOf(pid: number, thread = pid): number {
  const stat = readFileSync(`/proc/${pid}/task/${thread}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}

describe('offender demotion', () => {
  it('runs one extra worker at the lowest priority that nothing is pinned to at first', () => {
    const offender = host.supervisor.offenderWorker!;
    expect(offender).toBe(2);
    expect(host.supervisor.workerPids()).toHaveLength(3);
    const pid = host.supervisor.workerPid(offender);
    expect(niceOf(pid)).toBe(19);
    // Every thread, not only the main one (V8's and isolated-vm's run the guest code).
    const threads = readdirSync(`/proc/${pid}/task`).map(Number);
    expect(threads.length).toBeGreaterThan(1);
    for (const thread of threads) expect(niceOf(pid, thread), `thread ${thread}`).toBe(19);
    for (const name of ['hello', 'counter', 'infinite-loop', 'heap-growth']) expect(host.supervisor.workerOf(name)).not.toBe(offender);
  });

  it('moves an integration there after it times out, and it keeps working there', async () => {
    expect((await fetch(endpointOf(host, 'infinite-loop'))).status).toBe(504);
    expect(host.supervisor.workerOf('infinite-loop')).toBe(host.supervisor.offenderWorker);
    expect(host.logs.some((line) => line.includes('"infinite-loop" ran past its deadline: moved to the low-priority sandbox worker'))).toBe(true);
    expect((await fetch(`${endpointOf(host, 'infinite-loop')}?mode=ok`)).status).toBe(200);
    expect(host.supervisor.workerOf('hello')).not.toBe(host.supervisor.offenderWorker);
    expect(await (await fetch(endpointOf(host, 'hello'), { method: 'POST' })).json()).toEqual({ received: true });
  });
});

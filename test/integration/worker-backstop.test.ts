// The worker enforces the dispatch deadline, but a worker can be starved of CPU (the offenders'
// worker runs at the lowest priority on a busy machine) or frozen: the host then answers for it at
// its backstop (twice the deadline, at least the deadline + 5 s) with 504 ERR_SANDBOX_TIMEOUT,
// counts it as a timeout, and the worker, once it runs again, disposes what it was still running.
// The test freezes a worker with SIGSTOP (a process it started) and thaws it with SIGCONT.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestHost, endpointOf, waitFor, warmUp, type TestHost } from '../helpers/host.ts';

const DEADLINE_MS = 500;
const BACKSTOP_MS = DEADLINE_MS + 5_000;
let host: TestHost;
let frozen: number | null = null;

beforeAll(async () => {
  host = await startTestHost({ dirs: ['fixtures/integrations'], limits: { dispatchTimeoutMs: DEADLINE_MS } });
  await warmUp(endpointOf(host, 'hello'), { method: 'POST' });
});
afterAll(async () => {
  if (frozen !== null) process.kill(frozen, 'SIGCONT');
  await host?.close();
});

describe('the backstop for a silent worker', () => {
  it('answers 504 ERR_SANDBOX_TIMEOUT for a frozen worker once the backstop passes, never before', async () => {
    const worker = host.supervisor.workerOf('hello')!;
    frozen = host.supervisor.workerPids()[worker];
    process.kill(frozen, 'SIGSTOP');
    const started = performance.now();
    const response = await fetch(endpointOf(host, 'hello'), {
      method: 'POST',
      signal: AbortSignal.timeout(BACKSTOP_MS * 4),
    });
    const elapsed = performance.now() - started;
    expect(response.status).toBe(504);
    expect((await response.json()).error).toEqual({
      code: 'ERR_SANDBOX_TIMEOUT',
      message: `the integration did not answer within ${DEADLINE_MS} ms`,
    });
    expect(elapsed).toBeGreaterThanOrEqual(BACKSTOP_MS - 50);
    expect(
      host.logs.some((line) =>
        line.includes(
          `sandbox worker ${worker} did not answer a dispatch of "hello" within ${BACKSTOP_MS} ms: answered 504 for it`,
        ),
      ),
    ).toBe(true);
    // Counted as a timeout: the integration moved to the offenders' worker.
    expect(host.supervisor.workerOf('hello')).toBe(host.supervisor.offenderWorker);
  });

  it('keeps the neighbours on other workers answering meanwhile, and the integration answers again', async () => {
    const neighbour = ['event-log', 'content-sync', 'oauth-demo'].find(
      (name) => host.supervisor.workerPids()[host.supervisor.workerOf(name)!] !== frozen,
    )!;
    expect((await fetch(endpointOf(host, neighbour))).status).toBeLessThan(500);
    process.kill(frozen!, 'SIGCONT');
    frozen = null;
    const response = await fetch(endpointOf(host, 'hello'), { method: 'POST' });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ received: true });
  });

  it('leaves every worker process alive once thawed', async () => {
    await waitFor(() => host.supervisor.workerPids().every((pid) => pid > 0));
    for (const pid of host.supervisor.workerPids()) expect(() => process.kill(pid, 0)).not.toThrow();
  });
});

// A guest that spins forever after awaiting a host promise escapes V8's synchronous timeout; the
// worker's wall-clock deadline must still stop it (504) by disposing the isolate, and the
// integration must recover, twice in a row: a deadline that answered 504 but left the isolate
// spinning would leave the integration wedged, answering 504 forever. (With offenders demoted, the
// first timeout moves it to a fresh isolate on the offenders' worker, hiding that until the second;
// here it stays on its worker, because the lowest-priority one is starved on a busy machine before
// the guest even gets to its await. Demotion has its own test.)
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestHost, endpointOf, newestEvent, warmUp, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';

const DEADLINE_MS = 1_000;
let host: TestHost;
let receiver: http.Server;
let receiverUrl = '';
let received = 0;

async function runaway(): Promise<void> {
  const before = received;
  const response = await fetch(`${endpointOf(host, 'loop-after-await')}?target=${encodeURIComponent(receiverUrl)}`);
  expect(response.status).toBe(504);
  expect((await response.json()).error).toEqual({
    code: 'ERR_SANDBOX_TIMEOUT',
    message: `the integration did not answer within ${DEADLINE_MS} ms`,
  });
  // It did await the fetch (so V8's synchronous timeout no longer applied) before spinning.
  expect(received).toBe(before + 1);
  const logged = await newestEvent(host, 'loop-after-await');
  expect(logged).toMatchObject({ status: 504, errorCode: 'ERR_SANDBOX_TIMEOUT' });
  // The worker's own measure (start-up excluded by warming): the configured deadline, not the 10 s default.
  expect(logged.durationMs).toBeGreaterThanOrEqual(DEADLINE_MS - 1);
  expect(logged.durationMs).toBeLessThan(DEADLINE_MS + 4_000);
}

async function recovers(): Promise<void> {
  const response = await fetch(`${endpointOf(host, 'loop-after-await')}?mode=ok`);
  expect(response.status).toBe(200);
  expect(await response.text()).toBe('fine');
}

beforeAll(async () => {
  receiver = http.createServer((_req, res) => {
    received++;
    res.end('ok');
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`;
  host = await startTestHost({
    dirs: ['fixtures/integrations', 'fixtures/hostile'],
    demoteOffenders: false,
    allowEgress: [`127.0.0.1:${(receiver.address() as AddressInfo).port}`],
    limits: { dispatchTimeoutMs: DEADLINE_MS, memoryLimitMb: 64 },
  });
  await warmUp(`${endpointOf(host, 'loop-after-await')}?mode=ok`);
});
afterAll(async () => {
  await host?.close();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});

describe('infinite loop after await fetch()', () => {
  it('is stopped at the wall-clock deadline with 504 ERR_SANDBOX_TIMEOUT', async () => {
    await runaway();
  });

  it('recovers on the next request with a fresh isolate', async () => {
    await recovers();
  });

  it('is stopped again by a second runaway request, and recovers again', async () => {
    await runaway();
    await recovers();
  });

  it('leaves the host and its neighbour answering', async () => {
    await expectHostHealthy(host);
  });
});

// AbortSignal.timeout as a way to run guest code while its integration is idle: its abort listeners
// (and those of AbortSignal.any signals that follow it) would run whenever the time comes, with
// nothing in flight: CPU, fetches and log lines no request paid for. The timeout is one of the
// runtime's timers, so it follows their rule: dropped when the integration goes idle, never fired.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointOf, startTestHost, waitFor, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';
import { startReceiver, type Receiver } from '../helpers/receivers.ts';

const DROPPED =
  /\[idle-abort-signal[^\]]*\] warn: (\d+) timer\(s\) still pending when the integration finished its work: dropped/;
const ARMED = 40;
const DUE_MS = 200;

let host: TestHost;
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver('ok');
  host = await startTestHost({
    dirs: ['fixtures/integrations', 'fixtures/hostile'],
    allowEgress: [`127.0.0.1:${receiver.port}`],
  });
});
afterAll(async () => {
  await host?.close();
  await receiver?.close();
});

const ask = async (query: string) => {
  const response = await fetch(`${endpointOf(host, 'idle-abort-signal')}?${query}`);
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
};

describe('AbortSignal.timeout listeners after the response', () => {
  it('fire within the request that awaits them (control)', async () => {
    expect(await ask('mode=inflight')).toEqual({ name: 'TimeoutError', aborted: true });
  });

  it('never run once the integration is idle: the timeouts are dropped with its other timers', async () => {
    const before = host.logs.length;
    const armedAt = Date.now();
    expect(
      await ask(`mode=arm&count=${ARMED}&ms=${DUE_MS}&url=${encodeURIComponent(`${receiver.url}/abort`)}`),
    ).toEqual({ armed: ARMED, ran: 0 });
    // Idle now: the worker drops what was pending (one line, every timeout accounted for).
    await waitFor(() => host.logs.slice(before).some((line) => DROPPED.test(line)), 10_000);
    const dropped = Number(DROPPED.exec(host.logs.slice(before).find((line) => DROPPED.test(line))!)![1]);
    expect(dropped).toBe(ARMED);
    // Past the time they were due, later requests still find that no listener ran.
    await waitFor(async () => Date.now() > armedAt + DUE_MS * 3 && (await ask('mode=count')).ran === 0, 10_000);
    expect((await ask('mode=count')).ran).toBe(0);
    const lines = host.logs.slice(before).filter((line) => line.includes('[idle-abort-signal'));
    expect(lines.filter((line) => line.includes('abort listener ran'))).toEqual([]);
    expect(lines.filter((line) => line.includes('fired after the integration finished its work'))).toEqual([]);
    expect(receiver.hits).toEqual([]);
  });

  it('leaves the host and its neighbour answering', async () => {
    await expectHostHealthy(host);
  });
});

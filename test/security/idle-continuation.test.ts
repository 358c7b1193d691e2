// A fetch the integration neither awaits nor hands to waitUntil answers after the event ended:
// settling it would run the guest's continuation while nothing is in flight, outside any deadline
// (an endless loop there would hang the isolate for good). Such a fetch is abandoned: its result
// never reaches the guest, one line says so, and the integration keeps answering.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointOf, startTestHost, waitFor, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';

let host: TestHost;
let receiver: Server;
let receiverUrl = '';
const pending: (() => void)[] = [];

beforeAll(async () => {
  // Answers only when the test says so: the event is long over by then.
  receiver = createServer((_req, res) => void pending.push(() => res.end('late')));
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const port = (receiver.address() as AddressInfo).port;
  receiverUrl = `http://127.0.0.1:${port}/slow`;
  host = await startTestHost({
    dirs: ['fixtures/integrations', 'fixtures/hostile'],
    allowEgress: [`127.0.0.1:${port}`],
  });
});
afterAll(async () => {
  for (const answer of pending) answer();
  await host?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

describe('a fetch answered after its event ended', () => {
  it('never runs the continuation, and the integration keeps answering', async () => {
    const endpoint = endpointOf(host, 'idle-continuation');
    const answered = await fetch(`${endpoint}?url=${encodeURIComponent(receiverUrl)}`);
    expect(await answered.text()).toBe('answered before the fetch did');
    await waitFor(() => pending.length === 1);
    for (const answer of pending.splice(0)) answer();
    await waitFor(() =>
      host.logs.some((line) => line.includes('[idle-continuation') && line.includes('its result was dropped')),
    );
    const next = await fetch(`${endpoint}?mode=ok`);
    expect(next.status).toBe(200);
    expect(await next.text()).toBe('fine');
    expect(host.logs.some((line) => line.includes('continuation ran'))).toBe(false);
  });

  it('leaves the host and its neighbour answering', async () => {
    await expectHostHealthy(host);
  });
});

// Headers that all reference one large string: copied out of the isolate, 200 of them would hold
// the string 200 times in the worker and then in the host. The runtime refuses any message whose
// header names and values add up to more than 64 KiB before it crosses, so the worker survives,
// nothing is quarantined, the host's memory does not grow, and no request leaves the sandbox.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointOf, startTestHost, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy, neighbourAnswers } from '../helpers/host-health.ts';

let host: TestHost;
let receiver: Server;
let receiverPort: number;
let receiverHits = 0;
const connects: { address: string; port: number }[] = [];

const hostBytes = () => {
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
};

beforeAll(async () => {
  receiver = createServer((_req, res) => {
    receiverHits++;
    res.end('ok');
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverPort = (receiver.address() as AddressInfo).port;
  // One regular worker: the attacker and its neighbour `hello` share it.
  host = await startTestHost({
    dirs: ['fixtures/integrations', 'fixtures/hostile'],
    workers: 1,
    allowEgress: [`127.0.0.1:${receiverPort}`],
    onEgressConnect: (event) => void connects.push(event),
  });
});
afterAll(async () => {
  await host?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

describe('header amplification', () => {
  it(
    'answers a response with 200 headers sharing one string ' + 'with a 500, in the sandbox, three times over',
    async () => {
      const pids = host.supervisor.workerPids();
      const before = hostBytes();
      for (let round = 0; round < 3; round++) {
        const [attack, neighbour] = await Promise.all([
          fetch(`${endpointOf(host, 'header-amplification')}?mode=response&count=200&kb=60`),
          neighbourAnswers(host),
        ]);
        expect(attack.status).toBe(500);
        expect(await attack.json()).toEqual({ error: 'Internal server error' });
        expect(neighbour.status).toBe(200);
      }
      // Had the headers crossed, this process would have held 200 × 60 KiB per round.
      expect(hostBytes() - before).toBeLessThan(16 * 1024 * 1024);
      expect(host.supervisor.workerPids()).toEqual(pids);
      expect(host.supervisor.isQuarantined('header-amplification')).toBe(false);
      expect(host.supervisor.isQuarantined('hello')).toBe(false);
      expect(
        host.logs.some(
          (line) =>
            line.includes('[header-amplification') &&
            line.includes('the response headers add up to more than 65536 bytes'),
        ),
      ).toBe(true);
    },
  );

  it('refuses a single header value longer than the cap at once, however often it is appended', async () => {
    const answer = await fetch(`${endpointOf(host, 'header-amplification')}?mode=huge-value&mb=22&count=200`);
    expect(answer.status).toBe(200);
    expect((await answer.json()).refused).toContain('longer than 65536 characters');
  });

  it('refuses amplified headers on a platform API call before they leave the isolate', async () => {
    const before = hostBytes();
    const answer = await fetch(`${endpointOf(host, 'header-amplification')}?mode=api&count=100&kb=60`);
    expect(await answer.json()).toEqual({
      refused: 'TypeError: fetch: the request headers add up to more than 65536 bytes',
    });
    expect(hostBytes() - before).toBeLessThan(16 * 1024 * 1024);
  });

  it('refuses amplified headers on an outbound fetch: no socket is opened', async () => {
    const receiver = encodeURIComponent(`http://127.0.0.1:${receiverPort}/`);
    const answer = await fetch(
      `${endpointOf(host, 'header-amplification')}?mode=egress&count=100&kb=60&url=${receiver}`,
    );
    expect(await answer.json()).toEqual({
      refused: 'TypeError: fetch: the request headers add up to more than 65536 bytes',
    });
    expect(connects).toEqual([]);
    expect(receiverHits).toBe(0);
  });

  it('still lets the same integration answer and send ordinary headers', async () => {
    const ok = await fetch(`${endpointOf(host, 'header-amplification')}?mode=ok`);
    expect(await ok.text()).toBe('fine');
    const receiver = encodeURIComponent(`http://127.0.0.1:${receiverPort}/`);
    const egress = await fetch(`${endpointOf(host, 'header-amplification')}?mode=egress&count=3&kb=1&url=${receiver}`);
    expect(await egress.json()).toEqual({ sent: true, status: 200 });
    expect(receiverHits).toBe(1);
    await expectHostHealthy(host);
  });
});

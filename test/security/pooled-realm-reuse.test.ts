// The warm pool hands cold integrations realms made ahead of time by their worker. Two integrations
// of one worker, each started from the pool (after a deadline threw its first isolate away): what
// the first mutated is not visible to the second (no global, console or intrinsic change), nothing
// of the pool's owner is reachable, and the second's log lines, timers and fetches are its own.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointOf, startTestHost, waitFor, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';

const A = 'pool-probe-a';
const B = 'pool-probe-b';

interface Report {
  name: string;
  installation: string | null;
  before: {
    globals: string[];
    consoleKeys: string[];
    leftOnGlobal: unknown;
    leftOnConsole: unknown;
    intrinsics: Record<string, unknown>;
    owner: string[];
  };
  mutated: Record<string, boolean> | null;
  fetched: string | null;
}

let host: TestHost;
let receiver: Server;
let egress = '';
const received: string[] = [];
const connects: string[] = [];
let reports: { a: Report; b: Report; aRequest: string; bRequest: string };
let starts: { warm: Record<string, number>; all: Record<string, number> };

/** Counter values by integration for one metric of /metrics. */
async function counters(metric: string): Promise<Record<string, number>> {
  const text = await (await host.admin('/metrics')).text();
  const values: Record<string, number> = { [A]: 0, [B]: 0 };
  for (const match of text.matchAll(new RegExp(`^integration_host_${metric}\\{integration="([^"]+)"\\} (\\d+)`, 'gm')))
    values[match[1]] = Number(match[2]);
  return values;
}

async function probe(name: string, query: string): Promise<{ report: Report; requestId: string }> {
  const response = await fetch(`${endpointOf(host, name)}?${query}`);
  expect(response.status).toBe(200);
  return { report: (await response.json()) as Report, requestId: response.headers.get('x-request-id') ?? '' };
}

/** A deadline disposes the integration's isolate: its next request claims a realm from the pool. */
async function reset(name: string): Promise<void> {
  expect((await fetch(`${endpointOf(host, name)}/hang`)).status).toBe(504);
}

beforeAll(async () => {
  receiver = createServer((req, res) => {
    received.push(req.url ?? '');
    res.end('pong');
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const port = (receiver.address() as AddressInfo).port;
  egress = `http://127.0.0.1:${port}`;
  host = await startTestHost({
    dirs: ['fixtures/integrations', 'test/fixtures/pool-probe'],
    workers: 1,
    demoteOffenders: false,
    allowEgress: [`127.0.0.1:${port}`],
    limits: { dispatchTimeoutMs: 1_500, warmIsolatesPerWorker: 2 },
    onEgressConnect: ({ integration, address, port: connected }) =>
      connects.push(`${integration} ${address}:${connected}`),
  });
  const started = host;
  await waitFor(
    async () =>
      (await Promise.all([A, B].map((name) => started.services.listEvents(name, { limit: 10 })))).every(
        (page) => page.items.length > 0,
      ),
    20_000,
  );
  const warmBefore = await counters('warm_isolate_starts_total');
  const allBefore = await counters('isolate_starts_total');
  await reset(A);
  const a = await probe(A, `mutate=1&egress=${encodeURIComponent(egress)}`);
  await reset(B);
  const b = await probe(B, `egress=${encodeURIComponent(egress)}`);
  const warmAfter = await counters('warm_isolate_starts_total');
  const allAfter = await counters('isolate_starts_total');
  starts = {
    warm: { [A]: warmAfter[A] - warmBefore[A], [B]: warmAfter[B] - warmBefore[B] },
    all: { [A]: allAfter[A] - allBefore[A], [B]: allAfter[B] - allBefore[B] },
  };
  reports = { a: a.report, b: b.report, aRequest: a.requestId, bRequest: b.requestId };
}, 60_000);
afterAll(async () => {
  await host?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

describe('realms from the warm pool', () => {
  it('started both integrations, on one worker, from pooled realms', () => {
    expect(host.supervisor.workerOf(A)).toBe(host.supervisor.workerOf(B));
    expect(starts.all).toEqual({ [A]: 1, [B]: 1 });
    expect(starts.warm).toEqual({ [A]: 1, [B]: 1 });
  });

  it('let the first integration mutate only what any guest may in its own realm', () => {
    expect(reports.a.mutated).toEqual({
      global: true,
      console: true,
      objectPrototype: false,
      arrayPrototype: false,
      arrayPush: false,
      jsonParse: false,
      promiseThen: false,
      functionPrototype: false,
    });
  });

  it("shows the second integration a pristine realm: none of the first one's changes, the same globals", () => {
    const { before } = reports.b;
    expect(before.leftOnGlobal).toBeUndefined();
    expect(before.leftOnConsole).toBeUndefined();
    expect(before.intrinsics).toEqual({
      objectPrototype: undefined,
      arrayPrototype: undefined,
      arrayPush: 'push',
      jsonParse: 'parse',
      promiseThen: 'then',
      functionPrototype: undefined,
    });
    // A looked before it mutated: both realms started out identical.
    expect(before.globals).toEqual(reports.a.before.globals);
    expect(before.consoleKeys).toEqual(reports.a.before.consoleKeys);
    expect(before.globals).not.toContain('fromA');
  });

  it('leaves nothing of the pool or the worker reachable', () => {
    for (const report of [reports.a, reports.b])
      expect(report.before.owner).toEqual(['undefined', 'undefined', 'undefined', 'undefined', 'undefined']);
  });

  it('gives each integration its own identity', () => {
    expect(reports.a.name).toBe(A);
    expect(reports.b.name).toBe(B);
    expect(reports.b.installation).not.toBe(reports.a.installation);
  });

  it("attributes the second integration's log lines and timer to its own event, never the first's", async () => {
    const entries = async (name: string) => (await host.services.listEvents(name, { limit: 50 })).items;
    const [ofA, ofB] = await Promise.all([entries(A), entries(B)]);
    const bEntry = ofB.find((entry) => entry.requestId === reports.bRequest);
    expect(bEntry?.logs.map((line) => line.text)).toEqual([`log of ${B}`, `timer of ${B}`]);
    const aEntry = ofA.find((entry) => entry.requestId === reports.aRequest);
    expect(aEntry?.logs.map((line) => line.text)).toEqual([`log of ${A}`, `timer of ${A}`]);
    expect(ofA.flatMap((entry) => entry.logs).some((line) => line.text.includes(B))).toBe(false);
  });

  it("attributes the second integration's fetch to it", () => {
    expect(reports.b.fetched).toBe('pong');
    expect(received).toEqual([`/from/${A}`, `/from/${B}`]);
    const port = new URL(egress).port;
    expect(connects).toEqual([`${A} 127.0.0.1:${port}`, `${B} 127.0.0.1:${port}`]);
  });

  it('leaves the host answering', async () => {
    await expectHostHealthy(host);
  });
});

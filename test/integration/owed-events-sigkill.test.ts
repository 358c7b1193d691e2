// Setup events survive a host killed with SIGKILL between the change that owes them and their
// delivery: the installation_setup whose delivery is in flight (its integration relays it to a
// receiver that holds the request) and the one owed behind it are delivered, in order, after a
// restart on the same SQLite file, and by the other host on one PostgreSQL. The window is held
// open by the receiver, never by a timer. Only 127.0.0.1.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { HostOptionsInput } from '../../host/config/options.ts';
import { waitFor } from '../helpers/host.ts';
import { startHostProcess, type HostProcess } from '../helpers/host-process.ts';
import { postgresUnavailable, startPostgres, type TestPostgres } from '../helpers/postgres.ts';

interface Arrival {
  eventId: string;
  previous: string | null;
  /** The apiEndpoint of the host whose sandbox ran the attempt. */
  host: string;
}

/** A receiver that holds every request until released, then answers them (and later ones) 200. */
async function startReceiver() {
  const arrivals: Arrival[] = [];
  const held: http.ServerResponse[] = [];
  let holding = true;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      arrivals.push(JSON.parse(Buffer.concat(chunks).toString()) as Arrival);
      if (holding) held.push(res);
      else res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    arrivals,
    release() {
      holding = false;
      for (const res of held.splice(0)) if (!res.destroyed) res.writeHead(200).end('ok');
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

interface OwedItem {
  eventId: string;
  type: string;
  status: string;
  attempts: number;
}

const owedOf = async (host: HostProcess, installationId: string): Promise<OwedItem[]> =>
  ((await (await host.admin(`/v1/installations/${installationId}/owed-events`)).json()) as { items: OwedItem[] }).items;

const FIXTURE = 'test/fixtures/owed-events';
// Short, so the host that takes over does not wait the default minute and more for the dead one's claim.
const common: HostOptionsInput = {
  dirs: [FIXTURE],
  autoInstall: false,
  allowEgress: ['127.0.0.1'],
  owedEventLeaseMs: 3_000,
};

let receiver: Awaited<ReturnType<typeof startReceiver>>;
let server: TestPostgres | undefined;
const hosts: HostProcess[] = [];
const dataDir = mkdtempSync(join(tmpdir(), 'ih-owed-sigkill-'));

beforeAll(async () => {
  if (postgresUnavailable === undefined) server = await startPostgres();
}, 60_000);
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.kill('SIGKILL')));
  await receiver?.close();
});
afterAll(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/**
 * Installs, then edits twice through `writer`: the first edit's installation_setup is relayed and
 * held at the receiver, the second is owed behind it. Kills (SIGKILL) the host running the held
 * attempt; `survivor` names the host that must deliver both afterwards (started on demand).
 */
async function killBetweenChangeAndDelivery(
  writer: HostProcess,
  others: HostProcess[],
  survivorAfter: (killed: HostProcess) => Promise<HostProcess>,
): Promise<void> {
  receiver = await startReceiver();
  const created = await writer.admin('/v1/integrations/setup-relay/installations', {
    method: 'POST',
    body: JSON.stringify({ organization: 'acme', target: 'organization' }),
  });
  expect(created.status).toBe(201);
  const { id } = (await created.json()) as { id: string };
  // The install's own installation_setup names no receiver yet: the integration has nothing to relay.
  await waitFor(async () => (await owedOf(writer, id)).some((item) => item.status === 'delivered'));

  const first = await writer.admin(`/v1/installations/${id}/configuration`, {
    method: 'PATCH',
    body: JSON.stringify({ receiver: receiver.url, mark: 'one' }),
  });
  expect(first.status).toBe(200);
  await waitFor(() => receiver.arrivals.length === 1);
  const held = receiver.arrivals[0];
  expect(held.previous).toBeNull();
  const second = await writer.admin(`/v1/installations/${id}/configuration`, {
    method: 'PATCH',
    body: JSON.stringify({ mark: 'two' }),
  });
  expect(second.status).toBe(200);

  // The state an operator sees: the held event running, the next one waiting behind it.
  const before = await owedOf(writer, id);
  expect(before.map((item) => [item.type, item.status])).toEqual([
    ['installation_setup', 'pending'],
    ['installation_setup', 'running'],
    ['installation_setup', 'delivered'],
  ]);
  expect(before[1].eventId).toBe(held.eventId);
  const next = before[0].eventId;

  const killed = [writer, ...others].find((host) => host.url === held.host);
  expect(killed, `the held attempt ran on ${held.host}`).toBeDefined();
  expect(await killed!.kill('SIGKILL')).toBe('SIGKILL');
  receiver.release();

  const survivor = await survivorAfter(killed!);
  await waitFor(async () => (await owedOf(survivor, id)).every((item) => item.status === 'delivered'), 60_000);
  const after = await owedOf(survivor, id);
  expect(after.map((item) => [item.eventId, item.status])).toEqual([
    [next, 'delivered'],
    [held.eventId, 'delivered'],
    [before[2].eventId, 'delivered'],
  ]);
  expect(after[1].attempts).toBeGreaterThanOrEqual(2);

  // At least once, in order: the held event arrived again, from the survivor, before the next one first arrived.
  const arrivals = receiver.arrivals.map((arrival) => arrival.eventId);
  expect(arrivals.filter((eventId) => eventId === held.eventId).length).toBeGreaterThanOrEqual(2);
  expect(arrivals.lastIndexOf(held.eventId)).toBeLessThan(arrivals.indexOf(next));
  expect(receiver.arrivals.filter((arrival) => arrival.eventId === next).map((arrival) => arrival.previous)).toContain(
    'one',
  );
  expect(receiver.arrivals.find((arrival) => arrival.eventId === next)?.host).toBe(survivor.url);

  // The survivor's event log has both deliveries, answered 2xx.
  const logged = (
    (await (await survivor.admin('/v1/integrations/setup-relay/events?limit=200')).json()) as {
      items: { eventId: string; status: number }[];
    }
  ).items;
  for (const eventId of [held.eventId, next])
    expect(logged.some((entry) => entry.eventId === eventId && entry.status >= 200 && entry.status < 300)).toBe(true);
}

describe('setup events across a SIGKILL of the host', () => {
  it('are delivered in order after a restart on the same SQLite file', async () => {
    const options = { ...common, dataPath: join(dataDir, 'host.db') };
    const first = await startHostProcess(options);
    hosts.push(first);
    await killBetweenChangeAndDelivery(first, [], async () => {
      const again = await startHostProcess(options);
      hosts.push(again);
      // One process owns the file: the new one takes the dead one's claim back at once.
      expect(again.output()).toContain('owed events: resuming 1 event(s) left in flight by a previous run');
      return again;
    });
  }, 240_000);

  it.skipIf(postgresUnavailable !== undefined)(
    'are delivered in order by the other host on one PostgreSQL',
    async () => {
      const options = { ...common, storeUrl: await server!.createDatabase() };
      const a = await startHostProcess(options);
      hosts.push(a);
      const b = await startHostProcess(options);
      hosts.push(b);
      await killBetweenChangeAndDelivery(a, [b], async (killed) => (killed === a ? b : a));
    },
    240_000,
  );
});

// Webhook deliveries per second end to end through real hosts (POST /v1/events → outbox →
// delivery → loopback receiver) on SQLite (one host) and on PostgreSQL with one and with two
// hosts sharing the database; rounds interleaved so the three see the same machine. Starts a
// throwaway PostgreSQL (test/helpers/postgres.ts). Reports only; never asserts.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { startHostProcess, type HostProcess } from '../helpers/host-process.ts';
import { postgresUnavailable, startPostgres } from '../helpers/postgres.ts';
import { median, round } from './stats.ts';

export interface StoreThroughput {
  sqliteOneHost: number;
  postgresOneHost: number | null;
  postgresTwoHosts: number | null;
  events: number;
  rounds: number;
  skipped?: string;
}

const CONCURRENCY = 16;

async function receiver(): Promise<{ url: string; count(): number; close(): Promise<void> }> {
  let received = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    count: () => received,
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

async function setUp(
  options: Record<string, unknown>,
  hostCount: number,
): Promise<{ hosts: HostProcess[]; hook: Awaited<ReturnType<typeof receiver>> }> {
  const common = {
    dirs: ['test/fixtures/env-echo'],
    autoInstall: false,
    allowEgress: ['127.0.0.1'],
    workers: 1,
    ...options,
  };
  const hosts: HostProcess[] = [];
  for (let i = 0; i < hostCount; i++) hosts.push(await startHostProcess(common));
  const hook = await receiver();
  const created = await (
    await hosts[0].admin('/v1/integrations/host:webhook/installations', {
      method: 'POST',
      body: JSON.stringify({ organization: 'acme', target: 'space', space: 'space_acme_docs' }),
    })
  ).json();
  await hosts[0].admin(`/v1/installations/${created.id}/configuration`, {
    method: 'PATCH',
    body: JSON.stringify({ url: hook.url, events: ['space_content_updated'] }),
  });
  return { hosts, hook };
}

/** One round: `events` published through the hosts in turn; deliveries per second until the last arrives. */
async function round1(hosts: HostProcess[], hook: { count(): number }, events: number): Promise<number> {
  const base = hook.count();
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      for (let i = next++; i < events; i = next++) {
        const response = await hosts[i % hosts.length].admin('/v1/events', {
          method: 'POST',
          body: JSON.stringify({ type: 'space_content_updated', spaceId: 'space_acme_docs', revisionId: `r${i}` }),
        });
        if (response.status !== 202) throw new Error(`publish answered ${response.status}`);
        await response.arrayBuffer();
      }
    }),
  );
  while (hook.count() - base < events) await new Promise((resolve) => setTimeout(resolve, 5));
  return events / ((performance.now() - started) / 1000);
}

export async function measureStoreThroughput({ events = 1_000, rounds = 3 } = {}): Promise<StoreThroughput> {
  const dir = mkdtempSync(path.join(tmpdir(), 'store-bench-'));
  const postgres = postgresUnavailable === undefined ? await startPostgres() : undefined;
  const setups: {
    name: keyof Omit<StoreThroughput, 'events' | 'rounds' | 'skipped'>;
    hosts: HostProcess[];
    hook: Awaited<ReturnType<typeof receiver>>;
  }[] = [];
  try {
    setups.push({ name: 'sqliteOneHost', ...(await setUp({ dataPath: path.join(dir, 'host.db') }, 1)) });
    if (postgres) {
      setups.push({
        name: 'postgresOneHost',
        ...(await setUp({ storeUrl: await postgres.createDatabase('bench_one') }, 1)),
      });
      setups.push({
        name: 'postgresTwoHosts',
        ...(await setUp({ storeUrl: await postgres.createDatabase('bench_two') }, 2)),
      });
    }
    const samples = new Map(setups.map((setup) => [setup.name, [] as number[]]));
    // Warm-up, then interleaved rounds.
    for (const setup of setups) await round1(setup.hosts, setup.hook, Math.min(200, events));
    for (let r = 0; r < rounds; r++)
      for (const setup of setups) samples.get(setup.name)!.push(await round1(setup.hosts, setup.hook, events));
    const figure = (name: string) =>
      samples.has(name as never) ? round(median(samples.get(name as never)!), 0) : null;
    return {
      sqliteOneHost: figure('sqliteOneHost') ?? 0,
      postgresOneHost: figure('postgresOneHost'),
      postgresTwoHosts: figure('postgresTwoHosts'),
      events,
      rounds,
      ...(postgresUnavailable !== undefined ? { skipped: `PostgreSQL: ${postgresUnavailable}` } : {}),
    };
  } finally {
    for (const setup of setups) {
      await Promise.all(setup.hosts.map((host) => host.kill('SIGTERM')));
      await setup.hook.close();
    }
    await postgres?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

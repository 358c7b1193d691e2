// Webhook deliveries per second end to end through real hosts (POST /v1/events → outbox →
// delivery → loopback receiver) on SQLite (one host) and on PostgreSQL with one and with two
// hosts sharing the database, and the work per delivery: round trips and statements (the hosts'
// own count, store/traffic.ts), CPU of the hosts and of PostgreSQL, and pg_stat_statements' top
// statements; rounds interleaved so the three see the same machine. Starts a throwaway PostgreSQL
// (test/helpers/postgres.ts). Reports only; never asserts.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { startHostProcess, type HostProcess } from '../helpers/host-process.ts';
import { postgresUnavailable, startPostgres, type TestPostgres } from '../helpers/postgres.ts';
import { treeCpuMs } from './process-cpu.ts';
import { median, round } from './stats.ts';

type SetupName = 'sqliteOneHost' | 'postgresOneHost' | 'postgresTwoHosts';
/** The per-delivery figures' keys, one per setup (the issue's names). */
const KEY: Record<SetupName, 'sqlite' | 'postgres' | 'postgresTwoHosts'> = {
  sqliteOneHost: 'sqlite',
  postgresOneHost: 'postgres',
  postgresTwoHosts: 'postgresTwoHosts',
};
type PerStore = Partial<Record<'sqlite' | 'postgres' | 'postgresTwoHosts', number>>;

export interface StoreThroughput {
  sqliteOneHost: number;
  postgresOneHost: number | null;
  postgresTwoHosts: number | null;
  /** Calls the hosts made to the database and waited on, per delivery (all hosts of the setup). */
  roundTripsPerDelivery: PerStore;
  statementsPerDelivery: PerStore;
  /** CPU of the host processes (with their workers), ms per delivery. */
  hostCpuMsPerDelivery: PerStore;
  /** CPU of PostgreSQL (postmaster and backends), ms per delivery. */
  postgresCpuMsPerDelivery: PerStore;
  /** pg_stat_statements' calls per delivery of the most-called statements, one PostgreSQL host. */
  topStatements?: { calls: number; query: string }[];
  events: number;
  rounds: number;
  skipped?: string;
}

interface RoundWork {
  perSec: number;
  roundTrips: number;
  statements: number;
  hostCpuMs: number;
  postgresCpuMs: number | null;
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

/** The host's own count of its database traffic, from its metrics. */
async function trafficOf(host: HostProcess): Promise<{ roundTrips: number; statements: number }> {
  const text = await (await host.admin('/metrics')).text();
  const value = (name: string) => Number(new RegExp(`^integration_host_${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  return { roundTrips: value('store_round_trips_total'), statements: value('store_statements_total') };
}

async function sumTraffic(hosts: HostProcess[]) {
  const each = await Promise.all(hosts.map(trafficOf));
  return {
    roundTrips: each.reduce((sum, t) => sum + t.roundTrips, 0),
    statements: each.reduce((sum, t) => sum + t.statements, 0),
  };
}

const hostsCpuMs = (hosts: HostProcess[]) => hosts.reduce((sum, host) => sum + treeCpuMs(host.child.pid!), 0);

/** One round with its work: the traffic, hosts' CPU and PostgreSQL's CPU it took, per delivery. */
async function measuredRound(
  hosts: HostProcess[],
  hook: { count(): number },
  events: number,
  postgres: TestPostgres | undefined,
): Promise<RoundWork> {
  const traffic = await sumTraffic(hosts);
  const cpu = hostsCpuMs(hosts);
  const pgCpu = postgres ? treeCpuMs(postgres.pid) : 0;
  const perSec = await round1(hosts, hook, events);
  const after = await sumTraffic(hosts);
  return {
    perSec,
    roundTrips: (after.roundTrips - traffic.roundTrips) / events,
    statements: (after.statements - traffic.statements) / events,
    hostCpuMs: (hostsCpuMs(hosts) - cpu) / events,
    postgresCpuMs: postgres ? (treeCpuMs(postgres.pid) - pgCpu) / events : null,
  };
}

/** The statements PostgreSQL ran for one database during `work`, by calls per delivery (pg_stat_statements). */
async function profiled<T>(
  postgres: TestPostgres,
  database: string,
  events: number,
  work: () => Promise<T>,
): Promise<{ result: T; top: { calls: number; query: string }[] }> {
  const client = new pg.Client({ connectionString: postgres.url });
  await client.connect();
  try {
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    await client.query('SELECT pg_stat_statements_reset()');
    const result = await work();
    const { rows } = await client.query<{ calls: string; query: string }>(
      `SELECT s.calls, s.query FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
       WHERE d.datname = $1 ORDER BY s.calls DESC LIMIT 8`,
      [database],
    );
    const top = rows.map((row) => ({
      calls: round(Number(row.calls) / events, 2),
      query: row.query.replace(/\s+/g, ' ').slice(0, 140),
    }));
    return { result, top };
  } finally {
    await client.end();
  }
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
  const postgres =
    postgresUnavailable === undefined ? await startPostgres({ preload: ['pg_stat_statements'] }) : undefined;
  const setups: {
    name: SetupName;
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
    const samples = new Map(setups.map((setup) => [setup.name, [] as RoundWork[]]));
    // Warm-up, then interleaved rounds.
    for (const setup of setups) await round1(setup.hosts, setup.hook, Math.min(200, events));
    let topStatements: { calls: number; query: string }[] | undefined;
    for (let r = 0; r < rounds; r++)
      for (const setup of setups) {
        const pgOf = setup.name === 'sqliteOneHost' ? undefined : postgres;
        const run = () => measuredRound(setup.hosts, setup.hook, events, pgOf);
        if (r === 0 && setup.name === 'postgresOneHost' && postgres) {
          const profile = await profiled(postgres, 'bench_one', events, run);
          topStatements = profile.top;
          samples.get(setup.name)!.push(profile.result);
        } else samples.get(setup.name)!.push(await run());
      }
    const figure = (name: SetupName) =>
      samples.has(name) ? round(median(samples.get(name)!.map((w) => w.perSec)), 0) : null;
    const perDelivery = (pick: (work: RoundWork) => number | null, digits: number): PerStore =>
      Object.fromEntries(
        [...samples]
          .filter(([, works]) => works.every((work) => pick(work) !== null))
          .map(([name, works]) => [KEY[name], round(median(works.map((work) => pick(work) as number)), digits)]),
      );
    return {
      sqliteOneHost: figure('sqliteOneHost') ?? 0,
      postgresOneHost: figure('postgresOneHost'),
      postgresTwoHosts: figure('postgresTwoHosts'),
      roundTripsPerDelivery: perDelivery((work) => work.roundTrips, 2),
      statementsPerDelivery: perDelivery((work) => work.statements, 2),
      hostCpuMsPerDelivery: perDelivery((work) => work.hostCpuMs, 3),
      postgresCpuMsPerDelivery: perDelivery((work) => work.postgresCpuMs, 3),
      ...(topStatements ? { topStatements } : {}),
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

// `npm run bench`: measures the host against its limits on loopback (docs/performance.md) and prints a
// human table, then one JSON line. Every figure is the median of several rounds after warm-up.
// Not part of `npm test`; never asserts, only reports.

import { rmSync } from 'node:fs';
import { generateFixtures } from './generate.ts';
import { startChild, residentMb } from './children.ts';
import { runLoad } from './load.ts';
import { median, percentile, round } from './stats.ts';

interface HostInfo {
  url: string;
  pids: number[];
  endpoints: Record<string, string>;
}

const ROUNDS = 3;
const CONCURRENCY = 16;
const ROUND_MS = 3_000;
const figures: string[][] = [];

function note(name: string, value: string, target = ''): void {
  figures.push([name, value, target]);
  process.stderr.write(`  ${name}: ${value}\n`);
}

async function withHost<T>(fixtures: string, options: object, run: (host: HostInfo) => Promise<T>): Promise<T> {
  const child = await startChild<HostInfo>('./host-child.ts', [JSON.stringify({ dirs: [fixtures], ...options })]);
  try {
    return await run(child.info);
  } finally {
    await child.stop();
  }
}

async function timed(url: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(url);
  await response.arrayBuffer();
  return performance.now() - started;
}

async function measureDispatch() {
  const fixtures = generateFixtures({ trivial: 1 });
  try {
    const sandboxed = await withHost(fixtures, { workers: 2 }, async (host) => {
      const url = host.endpoints['bench-0000'];
      await runLoad({ url, concurrency: CONCURRENCY, durationMs: 1_000 });
      const rounds = [];
      for (let i = 0; i < ROUNDS; i++) rounds.push(await runLoad({ url, concurrency: CONCURRENCY, durationMs: ROUND_MS }));
      return rounds;
    });
    const native = await startChild<{ url: string }>('./native-child.ts');
    let nativeRounds;
    try {
      await runLoad({ url: native.info.url, concurrency: CONCURRENCY, durationMs: 1_000 });
      nativeRounds = [];
      for (let i = 0; i < ROUNDS; i++) nativeRounds.push(await runLoad({ url: native.info.url, concurrency: CONCURRENCY, durationMs: ROUND_MS }));
    } finally {
      await native.stop();
    }
    const sandboxedRps = median(sandboxed.map((r) => r.rps));
    const nativeRps = median(nativeRounds.map((r) => r.rps));
    const latencies = sandboxed.flatMap((r) => r.latenciesMs);
    return {
      sandboxedRps: round(sandboxedRps, 0),
      nativeRps: round(nativeRps, 0),
      ratio: round(sandboxedRps / nativeRps, 3),
      p50Ms: round(percentile(latencies, 50)),
      p99Ms: round(percentile(latencies, 99)),
      errors: sandboxed.reduce((sum, r) => sum + r.errors, 0),
    };
  } finally {
    rmSync(fixtures, { recursive: true, force: true });
  }
}

async function measureColdStart(count: number, options: object = {}) {
  const fixtures = generateFixtures({ trivial: count });
  try {
    return await withHost(fixtures, { workers: 2, ...options }, async (host) => {
      const names = Object.keys(host.endpoints);
      const rssBefore = residentMb(host.pids);
      const samples: number[] = [];
      for (const name of names) samples.push(await timed(host.endpoints[name]));
      await new Promise((resolve) => setTimeout(resolve, 500));
      const rssAfter = residentMb(host.pids);
      return { samples, rssBefore, rssAfter, loaded: names.length };
    });
  } finally {
    rmSync(fixtures, { recursive: true, force: true });
  }
}

async function measureTimeoutOverrun() {
  const fixtures = generateFixtures({ trivial: 0, spinners: 1 });
  try {
    return await withHost(fixtures, { workers: 2, limits: { dispatchTimeoutMs: 100 } }, async (host) => {
      const url = host.endpoints['spin-0'];
      await timed(url);
      const overruns: number[] = [];
      for (let i = 0; i < 7; i++) overruns.push((await timed(url)) - 100);
      return round(median(overruns));
    });
  } finally {
    rmSync(fixtures, { recursive: true, force: true });
  }
}

async function measureNeighbour() {
  const fixtures = generateFixtures({ trivial: 1, spinners: 2, allocators: 2 });
  try {
    return await withHost(fixtures, { workers: 2, limits: { dispatchTimeoutMs: 1_000, memoryLimitMb: 64 } }, async (host) => {
      const url = host.endpoints['bench-0000'];
      await runLoad({ url, concurrency: 4, durationMs: 1_000 });
      const quiet = [];
      for (let i = 0; i < ROUNDS; i++) quiet.push(percentile((await runLoad({ url, concurrency: 4, durationMs: ROUND_MS })).latenciesMs, 99));
      const attackers = ['spin-0', 'spin-1', 'allocate-0', 'allocate-1'].map((name) => host.endpoints[name]);
      let attacking = true;
      const attack = Promise.all(
        attackers.map(async (attackUrl) => {
          while (attacking) await fetch(attackUrl).then((r) => r.arrayBuffer()).catch(() => undefined);
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, 500));
      const underAttack = [];
      for (let i = 0; i < ROUNDS; i++) underAttack.push(percentile((await runLoad({ url, concurrency: 4, durationMs: ROUND_MS })).latenciesMs, 99));
      attacking = false;
      await attack;
      return { quiet: round(median(quiet)), underAttack: round(median(underAttack)) };
    });
  } finally {
    rmSync(fixtures, { recursive: true, force: true });
  }
}

async function measureWebhooks(): Promise<number> {
  try {
    const module = (await import('./webhook-throughput.ts')) as { measureWebhookDeliveriesPerSec(options: { count: number }): Promise<number> };
    const rounds = [];
    for (let i = 0; i < ROUNDS; i++) rounds.push(await module.measureWebhookDeliveriesPerSec({ count: 500 }));
    return round(median(rounds), 0);
  } catch (error) {
    process.stderr.write(`  webhook benchmark unavailable: ${(error as Error).message}\n`);
    return 0;
  }
}

const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : undefined;
const started = Date.now();

// Webhook deliveries/s through real hosts on SQLite and on PostgreSQL with one and two hosts (store-throughput.ts).
async function measureStores() {
  const { measureStoreThroughput } = await import('./store-throughput.ts');
  return measureStoreThroughput();
}
if (only === 'stores') {
  process.stdout.write(`${JSON.stringify({ stores: await measureStores() })}\n`);
  process.exit(0);
}
process.stderr.write('dispatch (sandboxed vs native Koa)…\n');
const dispatch = await measureDispatch();
if (only === 'dispatch') {
  process.stdout.write(`${JSON.stringify({ dispatch })}\n`);
  process.exit(0);
}
note('dispatch.sandboxedRps', String(dispatch.sandboxedRps));
note('dispatch.nativeRps', String(dispatch.nativeRps));
note('dispatch.ratio', String(dispatch.ratio), '≥ 0.35');
note('dispatch.p50Ms / p99Ms', `${dispatch.p50Ms} / ${dispatch.p99Ms}`);

process.stderr.write('cold start and memory (200 integrations)…\n');
const cold = await measureColdStart(200);
const coldStartMs = { p50: round(percentile(cold.samples, 50)), p99: round(percentile(cold.samples, 99)) };
const memoryPerIntegrationMb = round((cold.rssAfter - cold.rssBefore) / cold.loaded);
note('coldStartMs.p50 / p99', `${coldStartMs.p50} / ${coldStartMs.p99}`, 'p50 ≤ 15');
note('memoryPerIntegrationMb', String(memoryPerIntegrationMb), '≤ 3');

process.stderr.write('timeout overrun…\n');
const timeoutOverrunMs = await measureTimeoutOverrun();
note('timeoutOverrunMs', String(timeoutOverrunMs), '≤ 25');

process.stderr.write('neighbour latency under attack…\n');
const neighbourP99Ms = await measureNeighbour();
note('neighbourP99Ms quiet / underAttack', `${neighbourP99Ms.quiet} / ${neighbourP99Ms.underAttack}`, 'underAttack ≤ 3 × quiet');

process.stderr.write('scale (1,000 integrations)…\n');
const scale = await measureColdStart(1_000);
const scaleFigures = { integrations: scale.loaded, residentMb: round(scale.rssAfter, 0), coldStartP99Ms: round(percentile(scale.samples, 99)) };
note('scale: resident MB / cold-start p99', `${scaleFigures.residentMb} / ${scaleFigures.coldStartP99Ms}`);

process.stderr.write('webhook deliveries…\n');
const deliveriesPerSec = await measureWebhooks();
note('webhook.deliveriesPerSec', String(deliveriesPerSec), '≥ 500');

process.stderr.write('webhook deliveries through hosts: SQLite, PostgreSQL with one and two hosts…\n');
const stores = await measureStores();
note('stores: sqlite 1 host / postgres 1 host / 2 hosts (deliveries/s)', `${stores.sqliteOneHost} / ${stores.postgresOneHost ?? '-'} / ${stores.postgresTwoHosts ?? '-'}`);

const width = Math.max(...figures.map((row) => row[0].length));
process.stdout.write(`\n${'figure'.padEnd(width)}  value            target\n`);
for (const [name, value, target] of figures) process.stdout.write(`${name.padEnd(width)}  ${value.padEnd(15)}  ${target}\n`);
process.stdout.write(`\n(${Math.round((Date.now() - started) / 1000)} s, node ${process.version})\n`);
process.stdout.write(
  `${JSON.stringify({
    node: process.version,
    coldStartMs,
    dispatch: { sandboxedRps: dispatch.sandboxedRps, nativeRps: dispatch.nativeRps, ratio: dispatch.ratio, p50Ms: dispatch.p50Ms, p99Ms: dispatch.p99Ms },
    memoryPerIntegrationMb,
    timeoutOverrunMs,
    neighbourP99Ms,
    webhook: { deliveriesPerSec },
    stores,
    scale: scaleFigures,
  })}\n`,
);

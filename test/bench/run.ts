// `npm run bench`: measures the host against its targets on loopback (docs/performance.md), beside
// plain Koa and workerd in the same run, prints a human table, then one JSON line. Not part of
// `npm test`; never asserts, only reports. `--only <section>` runs one section (dispatch, startup,
// overrun, neighbour, scale, webhook, stores, streaming); `--no-workerd` skips workerd.

import { rmSync } from 'node:fs';
import { cpus } from 'node:os';
import { measureNeighbour, measureTimeoutOverrun } from './attack.ts';
import { startChild } from './children.ts';
import { compareServers, type RoundFigures, type Server, type ServerFigures } from './compare.ts';
import { generateFixtures } from './generate.ts';
import { startHost } from './hosts.ts';
import { busyCores, loadAverage } from './machine.ts';
import { measureStartup } from './startup.ts';
import { measureStreaming } from './streaming.ts';
import { median, round } from './stats.ts';
import { startWorkerd, type WorkerdServer } from './workerd.ts';
import { WORKER_V8_FLAGS } from '../../host/sandbox/v8-flags.ts';

const ROUNDS = 3;
/** The isolate memory budget of the startup and scale hosts: room for 1,000 live isolates. */
const SCALE_BUDGET_MB = 4_096;
const ROUND_MS = 3_000;
/** The body the streaming section passes through an integration. */
const STREAM_MB = 50;
const figures: string[][] = [];
const args = process.argv.slice(2);
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined;
const wanted = (section: string): boolean => only === undefined || only === section;

function note(name: string, value: string, target = '', workerd = ''): void {
  figures.push([name, value, target, workerd]);
  process.stderr.write(`  ${name}: ${value}${target ? `   (target ${target})` : ''}\n`);
}

function describeRound(name: string, r: RoundFigures): void {
  process.stderr.write(
    `    ${name.padEnd(9)} ${String(Math.round(r.rps)).padStart(6)} rps  ${r.cpuPerRequestUs.toFixed(0).padStart(4)} ` +
      `µs CPU/req (${r.serverCores.toFixed(2)} cores)  p50 ${r.p50Ms.toFixed(2)} p99 ${r.p99Ms.toFixed(2)} ms  load ` +
      `generator ${r.loadGeneratorUsPerRequest.toFixed(0)} µs/req  others ${r.otherCores.toFixed(2)} cores\n`,
  );
}

async function measureDispatch(): Promise<{
  at16: Record<string, ServerFigures>;
  at64: Record<string, ServerFigures>;
  workerd: { version: string } | { unavailable: string };
}> {
  const fixtures = generateFixtures({ trivial: 1 });
  // Whatever was started is stopped, even when a later start fails.
  const started: { stop(): Promise<void> }[] = [];
  const start = async <T extends { stop(): Promise<void> }>(server: Promise<T>): Promise<T> => {
    const running = await server;
    started.push(running);
    return running;
  };
  try {
    const host = await start(startHost(fixtures, { workers: 2 }));
    const native = await start(startChild<{ url: string; pids: number[] }>('./native-child.ts'));
    // The floor: one isolated-vm call per request from a bare node:http server (floor-child.ts).
    const floor = await start(startChild<{ url: string; pids: number[] }>('./floor-child.ts'));
    // The floor's call answering through a promise, as a fetch handler must (what the runtime cannot skip).
    const floorPromise = await start(startChild<{ url: string; pids: number[] }>('./floor-child.ts', ['promise']));
    // The floor's call in a second process behind IPC (what the host's process boundary cannot skip).
    const processFloor = await start(startChild<{ url: string; pids: number[] }>('./process-floor-child.ts'));
    // The runtime without the host: the same integration through our runtime, one process, a sandbox worker's V8 flags.
    const runtimeOnly = await start(
      startChild<{ url: string; pids: number[] }>('./runtime-child.ts', [fixtures, 'bench-0000'], WORKER_V8_FLAGS),
    );
    let workerd: WorkerdServer | null = null;
    let workerdInfo: { version: string } | { unavailable: string };
    if (args.includes('--no-workerd')) workerdInfo = { unavailable: 'skipped (--no-workerd)' };
    else {
      try {
        workerd = await start(startWorkerd());
        workerdInfo = { version: workerd.version };
      } catch (error) {
        workerdInfo = { unavailable: (error as Error).message.split('\n')[0] };
        process.stderr.write(`  workerd unavailable, measured without it: ${workerdInfo.unavailable}\n`);
      }
    }
    const servers: Server[] = [
      { name: 'sandboxed', url: host.info.endpoints['bench-0000'], pids: () => host.info.pids },
      { name: 'native', url: native.info.url, pids: () => native.info.pids },
      { name: 'floor', url: floor.info.url, pids: () => floor.info.pids },
      { name: 'floorPromise', url: floorPromise.info.url, pids: () => floorPromise.info.pids },
      { name: 'processFloor', url: processFloor.info.url, pids: () => processFloor.info.pids },
      { name: 'runtimeOnly', url: runtimeOnly.info.url, pids: () => runtimeOnly.info.pids },
      ...(workerd ? [{ name: 'workerd', url: workerd.url, pids: () => [workerd!.pid] }] : []),
    ];
    const result: { at16: Record<string, ServerFigures>; at64: Record<string, ServerFigures> } = { at16: {}, at64: {} };
    for (const concurrency of [16, 64] as const) {
      process.stderr.write(
        `  ${concurrency} keep-alive connections, ${ROUNDS} interleaved rounds of ${ROUND_MS / 1000} s:\n`,
      );
      result[`at${concurrency}`] = await compareServers(servers, {
        concurrency,
        rounds: ROUNDS,
        durationMs: ROUND_MS,
        warmUpMs: concurrency === 16 ? 5_000 : 2_000,
        onRound: describeRound,
      });
    }
    return { ...result, workerd: workerdInfo };
  } finally {
    for (const server of started.reverse()) await server.stop();
    rmSync(fixtures, { recursive: true, force: true });
  }
}

/**
 * A first round warms the delivery path (its SQLite statements, the dispatcher, the receiver) as the
 * dispatch figures' warm-up does; it is reported on its own, and the figure is the median of the
 * rounds after it. The first round runs 20–50 % below the later ones, so counting it understated the figure.
 */
async function measureWebhooks(): Promise<{ deliveriesPerSec: number; firstRoundPerSec: number }> {
  try {
    const module = (await import('./webhook-throughput.ts')) as {
      measureWebhookDeliveriesPerSec(options: { count: number }): Promise<number>;
    };
    const firstRoundPerSec = await module.measureWebhookDeliveriesPerSec({ count: 500 });
    const rounds = [];
    for (let i = 0; i < ROUNDS; i++) rounds.push(await module.measureWebhookDeliveriesPerSec({ count: 500 }));
    return { deliveriesPerSec: round(median(rounds), 0), firstRoundPerSec: round(firstRoundPerSec, 0) };
  } catch (error) {
    process.stderr.write(`  webhook benchmark unavailable: ${(error as Error).message}\n`);
    return { deliveriesPerSec: 0, firstRoundPerSec: 0 };
  }
}

// Webhook deliveries/s through real hosts on SQLite and on PostgreSQL with one and two hosts (store-throughput.ts).
async function measureStores() {
  const { measureStoreThroughput } = await import('./store-throughput.ts');
  return measureStoreThroughput();
}
if (only === 'stores') {
  process.stdout.write(`${JSON.stringify({ stores: await measureStores() })}\n`);
  process.exit(0);
}

const started = Date.now();
const machine = {
  cores: cpus().length,
  loadAverageAtStart: loadAverage(),
  busyCoresAtStart: round(await busyCores()),
  loadAverageAtEnd: [] as number[],
};
process.stderr.write(
  `machine: ${machine.cores} cores, load ` +
    `average ${machine.loadAverageAtStart.join(' ')}, ${machine.busyCoresAtStart} ` +
    `cores busy before the bench\n`,
);
const report: Record<string, unknown> = { node: process.version };

/** A reference server's figures at one concurrency, with its ratio to workerd's (null without workerd). */
function besideWorkerd(
  at: Record<string, ServerFigures>,
  name: string,
): { rps: number; ratioToWorkerd: number | null; cpuPerRequestUs: number } {
  const workerd = at.workerd as ServerFigures | undefined;
  return {
    rps: at[name].rps,
    ratioToWorkerd: workerd ? round(at[name].rps / workerd.rps, 3) : null,
    cpuPerRequestUs: at[name].cpuPerRequestUs,
  };
}

/** The @16 figures under the report's flat keys: `<name>Rps`, `<name>RatioToWorkerd`, `<name>CpuPerRequestUs`. */
function keyed(name: string, figures: ReturnType<typeof besideWorkerd>): Record<string, number | null> {
  return {
    [`${name}Rps`]: figures.rps,
    [`${name}RatioToWorkerd`]: figures.ratioToWorkerd,
    [`${name}CpuPerRequestUs`]: figures.cpuPerRequestUs,
  };
}

if (wanted('dispatch')) {
  process.stderr.write(
    'dispatch: hello world, sandboxed vs plain Koa vs the floor (node:http + one isolated-vm call) vs the runtime ' +
      'without the host vs workerd…\n',
  );
  const { at16, at64, workerd } = await measureDispatch();
  const ours = at16.sandboxed;
  const koa = at16.native;
  const theirs = at16.workerd as ServerFigures | undefined;
  const floor = at16.floor;
  const runtimeOnly = at16.runtimeOnly;
  const otherCores = round(
    median([...Object.values(at16), ...Object.values(at64)].flatMap((s) => s.rounds.map((r) => r.otherCores))),
  );
  report.dispatch = {
    sandboxedRps: ours.rps,
    nativeRps: koa.rps,
    ratio: round(ours.rps / koa.rps, 3),
    p50Ms: ours.p50Ms,
    p99Ms: ours.p99Ms,
    workerdRps: theirs?.rps ?? null,
    ratioToWorkerd: theirs ? round(ours.rps / theirs.rps, 3) : null,
    cpuPerRequestUs: {
      sandboxed: ours.cpuPerRequestUs,
      native: koa.cpuPerRequestUs,
      workerd: theirs?.cpuPerRequestUs ?? null,
    },
    at64: {
      sandboxedRps: at64.sandboxed.rps,
      nativeRps: at64.native.rps,
      workerdRps: at64.workerd?.rps ?? null,
      ratioToWorkerd: at64.workerd ? round(at64.sandboxed.rps / at64.workerd.rps, 3) : null,
      cpuPerRequestUs: {
        sandboxed: at64.sandboxed.cpuPerRequestUs,
        native: at64.native.cpuPerRequestUs,
        workerd: at64.workerd?.cpuPerRequestUs ?? null,
      },
    },
    // Node + isolated-vm at their cheapest: a bare node:http server making one isolated-vm call per request.
    ...keyed('floor', besideWorkerd(at16, 'floor')),
    floorAt64: besideWorkerd(at64, 'floor'),
    // The floor's two variants: the call's answer awaited through a promise; the call behind IPC.
    ...keyed('floorPromise', besideWorkerd(at16, 'floorPromise')),
    ...keyed('processFloor', besideWorkerd(at16, 'processFloor')),
    // What the ladder's two steps cannot go below: the promise's cost, the process boundary's.
    floorPromiseToFloor: round(at16.floorPromise.rps / floor.rps, 3),
    processFloorToFloor: round(at16.processFloor.rps / floor.rps, 3),
    // Our runtime without the host: the same integration through one IntegrationIsolate behind a bare node:http server.
    ...keyed('runtimeOnly', besideWorkerd(at16, 'runtimeOnly')),
    runtimeOnlyAt64: besideWorkerd(at64, 'runtimeOnly'),
    // The ladder's two steps (docs/performance.md): what the host keeps of the runtime, and the runtime of the floor.
    hostToRuntimeOnly: round(ours.rps / runtimeOnly.rps, 3),
    runtimeOnlyToFloor: round(runtimeOnly.rps / floor.rps, 3),
    errors: ours.errors + at64.sandboxed.errors,
    // Answers that were not 2xx (or failed) per server, both concurrencies: a figure with errors counts cheap failures.
    errorsByServer: Object.fromEntries(
      Object.keys(at16).map((name) => [name, at16[name].errors + (at64[name]?.errors ?? 0)]),
    ),
    otherCoresMedian: otherCores,
  };
  report.workerd = workerd;
  const w = (value: number | undefined, unit = '') => (value === undefined ? 'n/a' : `${value}${unit}`);
  note(
    'dispatch.sandboxedRps @16 / @64',
    `${ours.rps} / ${at64.sandboxed.rps}`,
    '',
    `${w(theirs?.rps)} / ${w(at64.workerd?.rps)}`,
  );
  note('dispatch.nativeRps @16 / @64 (Koa)', `${koa.rps} / ${at64.native.rps}`);
  note('dispatch.ratioToWorkerd', theirs ? String(round(ours.rps / theirs.rps, 3)) : 'n/a', '≈ 0.75');
  note('dispatch.hostToRuntimeOnly @16 (host ÷ runtime only)', String(round(ours.rps / runtimeOnly.rps, 3)), '≥ 0.85');
  note('dispatch.runtimeOnlyToFloor @16 (runtime ÷ floor)', String(round(runtimeOnly.rps / floor.rps, 3)), '≥ 0.75');
  note(
    'dispatch.cpuPerRequestUs',
    `${ours.cpuPerRequestUs} (Koa ${koa.cpuPerRequestUs})`,
    '≤ 120',
    w(theirs?.cpuPerRequestUs),
  );
  note('dispatch.ratio (to Koa)', String(round(ours.rps / koa.rps, 3)));
  note(
    'dispatch.floorRps @16 / @64 (node:http + 1 isolated-vm call)',
    `${floor.rps} / ${at64.floor.rps}`,
    '',
    `${w(theirs?.rps)} / ${w(at64.workerd?.rps)}`,
  );
  note('dispatch.floorRatioToWorkerd @16', theirs ? String(round(floor.rps / theirs.rps, 3)) : 'n/a');
  note(
    'dispatch.floorCpuPerRequestUs @16 / @64',
    `${floor.cpuPerRequestUs} / ${at64.floor.cpuPerRequestUs}`,
    '',
    `${w(theirs?.cpuPerRequestUs)} / ${w(at64.workerd?.cpuPerRequestUs)}`,
  );
  note(
    'dispatch.floorPromise / processFloor rps @16 (÷ floor)',
    `${at16.floorPromise.rps} (${round(at16.floorPromise.rps / floor.rps, 3)}) / ` +
      `${at16.processFloor.rps} (${round(at16.processFloor.rps / floor.rps, 3)})`,
  );
  note(
    'dispatch.floorPromise / processFloor CPU per request @16',
    `${at16.floorPromise.cpuPerRequestUs} / ${at16.processFloor.cpuPerRequestUs}`,
  );
  note(
    'dispatch.runtimeOnlyRps @16 / @64 (the runtime, no host)',
    `${runtimeOnly.rps} / ${at64.runtimeOnly.rps}`,
    '',
    `${w(theirs?.rps)} / ${w(at64.workerd?.rps)}`,
  );
  note('dispatch.runtimeOnlyRatioToWorkerd @16', theirs ? String(round(runtimeOnly.rps / theirs.rps, 3)) : 'n/a');
  note(
    'dispatch.runtimeOnlyCpuPerRequestUs @16 / @64',
    `${runtimeOnly.cpuPerRequestUs} / ${at64.runtimeOnly.cpuPerRequestUs}`,
    '',
    `${w(theirs?.cpuPerRequestUs)} / ${w(at64.workerd?.cpuPerRequestUs)}`,
  );
  const failing = Object.keys(at16)
    .map((name): [string, number] => [name, at16[name].errors + (at64[name]?.errors ?? 0)])
    .filter(([, count]) => count > 0);
  if (failing.length > 0)
    note('dispatch errors (not 2xx, counted in rps)', failing.map(([name, count]) => `${name} ${count}`).join(', '));
  note(
    'dispatch.p50Ms / p99Ms',
    `${ours.p50Ms} / ${ours.p99Ms}`,
    '',
    theirs ? `${theirs.p50Ms} / ${theirs.p99Ms}` : 'n/a',
  );
}

if (wanted('startup')) {
  process.stderr.write(
    'truly cold starts and memory per live isolate (200 integrations back to back, 50 more one at a time; host ' +
      'restarted on their data)…\n',
  );
  const fixtures = generateFixtures({ trivial: 200, paced: 50 });
  try {
    const startup = await measureStartup(fixtures, {
      cycles: 0,
      hostOptions: { limits: { isolateMemoryMb: SCALE_BUDGET_MB } },
    });
    report.coldStartMs = startup.coldStartMs;
    if (startup.coldStartPacedMs) report.coldStartPacedMs = startup.coldStartPacedMs;
    report.memoryPerIntegrationMb = startup.memoryPerLiveIsolateMb;
    note('coldStartMs.p50 / p99 (truly cold)', `${startup.coldStartMs.p50} / ${startup.coldStartMs.p99}`, 'p50 ≤ 3');
    if (startup.coldStartPacedMs)
      note(
        `coldStartPacedMs.p50 / p99 (one at a time, ${startup.coldStartPacedMs.gapMs} ms apart)`,
        `${startup.coldStartPacedMs.p50} / ${startup.coldStartPacedMs.p99}`,
      );
    note('memoryPerIntegrationMb (per live isolate)', String(startup.memoryPerLiveIsolateMb), '≤ 2.0');
    if (startup.failures > 0) note('startup failures', String(startup.failures));
  } finally {
    rmSync(fixtures, { recursive: true, force: true });
  }
}

if (wanted('overrun')) {
  process.stderr.write('timeout overrun (100 ms deadline, real timeouts only)…\n');
  const overrun = await measureTimeoutOverrun();
  report.timeoutOverrunMs = overrun.medianMs;
  report.timeoutOverrun = { samplesMs: overrun.samplesMs, statuses: overrun.statuses };
  note('timeoutOverrunMs (median of 504s)', `${overrun.medianMs} (${overrun.samplesMs.length} timeouts)`, '≤ 5');
}

if (wanted('neighbour')) {
  process.stderr.write('neighbour latency, rounds alternating quiet / under attack (attackers never paused)…\n');
  const neighbour = await measureNeighbour(ROUNDS, ROUND_MS);
  report.neighbourP99Ms = {
    quiet: neighbour.quiet,
    underAttack: neighbour.underAttack,
    ratio: round(neighbour.underAttack / neighbour.quiet),
    attackerStatuses: neighbour.attackerStatuses,
    quietRounds: neighbour.quietRounds,
    underAttackRounds: neighbour.underAttackRounds,
    attackerMoves: neighbour.attackerMoves,
  };
  const statuses = Object.entries(neighbour.attackerStatuses)
    .map(([status, count]) => `${count}×${status}`)
    .join(', ');
  note(
    'neighbourP99Ms quiet / underAttack',
    `${neighbour.quiet} / ${neighbour.underAttack} (${round(neighbour.underAttack / neighbour.quiet)}×)`,
    '≤ 1.5 × quiet',
  );
  note('  attackers answered', statuses);
  const moves = neighbour.attackerMoves;
  note(
    '  attackers moved',
    `${moves.demotions} to nice 19, ${moves.schedIdleDemotions} on to SCHED_IDLE, ${moves.schedIdleReturns} back ` +
      `(starved)`,
  );
  note(
    '  p99 per round, quiet / under attack',
    `${neighbour.quietRounds.join(', ')} / ${neighbour.underAttackRounds.join(', ')}`,
  );
}

if (wanted('scale')) {
  process.stderr.write(
    `scale: 1,000 integrations, truly cold then cycled twice in order (isolate budget ${SCALE_BUDGET_MB} MB)…\n`,
  );
  const fixtures = generateFixtures({ trivial: 1_000 });
  try {
    const scale = await measureStartup(fixtures, {
      cycles: 2,
      hostOptions: { limits: { isolateMemoryMb: SCALE_BUDGET_MB } },
    });
    report.scale = {
      integrations: scale.integrations,
      residentMb: scale.residentMb,
      coldStartP99Ms: scale.coldStartMs.p99,
      coldStartP50Ms: scale.coldStartMs.p50,
      cycledP50Ms: scale.cycledMs!.p50,
      cycledP99Ms: scale.cycledMs!.p99,
      isolateMemoryMb: SCALE_BUDGET_MB,
    };
    note('scale: resident MB / cold-start p99', `${scale.residentMb} / ${scale.coldStartMs.p99}`);
    const cycled = scale.cycledMs!;
    note('scale: cycled p50 / p99 (1,000 integrations)', `${cycled.p50} / ${cycled.p99}`, 'p50 ≤ 3');
    if (scale.failures > 0) note('scale failures', String(scale.failures));
  } finally {
    rmSync(fixtures, { recursive: true, force: true });
  }
}

if (wanted('webhook')) {
  process.stderr.write('webhook deliveries…\n');
  const { deliveriesPerSec, firstRoundPerSec } = await measureWebhooks();
  report.webhook = { deliveriesPerSec, firstRoundPerSec };
  note('webhook.deliveriesPerSec', String(deliveriesPerSec), '≥ 2,000');
  note('webhook.firstRoundPerSec (warm-up, not counted)', String(firstRoundPerSec));
}

if (wanted('stores')) {
  process.stderr.write('webhook deliveries through hosts: SQLite, PostgreSQL with one and two hosts…\n');
  const stores = await measureStores();
  report.stores = stores;
  note(
    'stores: sqlite 1 host / postgres 1 host / 2 hosts (deliveries/s)',
    `${stores.sqliteOneHost} / ${stores.postgresOneHost ?? '-'} / ${stores.postgresTwoHosts ?? '-'}`,
  );
  const ratio = (a: number | null, b: number | null) =>
    a === null || b === null || b === 0 ? 'n/a' : String(round(a / b, 2));
  note('stores: postgres 1 host ÷ sqlite', ratio(stores.postgresOneHost, stores.sqliteOneHost), '≥ 0.8');
  note('stores: 2 postgres hosts ÷ 1', ratio(stores.postgresTwoHosts, stores.postgresOneHost), '≥ 1.0');
  const trips = stores.roundTripsPerDelivery;
  note(
    'stores: round trips per delivery sqlite / postgres / 2 hosts',
    `${trips.sqlite ?? '-'} / ${trips.postgres ?? '-'} / ${trips.postgresTwoHosts ?? '-'}`,
    '≤ 3',
  );
  const hostCpu = stores.hostCpuMsPerDelivery;
  const pgCpu = stores.postgresCpuMsPerDelivery;
  note(
    'stores: CPU ms per delivery, hosts (postgres)',
    `${hostCpu.sqlite ?? '-'} / ${hostCpu.postgres ?? '-'} (${pgCpu.postgres ?? '-'}) / ` +
      `${hostCpu.postgresTwoHosts ?? '-'} (${pgCpu.postgresTwoHosts ?? '-'})`,
  );
}

if (wanted('streaming')) {
  process.stderr.write(
    `streaming: ${STREAM_MB} MB through an integration (fetch upstream → new Response(upstream.body)), beside ` +
      `workerd…\n`,
  );
  const streaming = await measureStreaming({
    rounds: ROUNDS,
    megabytes: STREAM_MB,
    workerd: !args.includes('--no-workerd'),
  });
  report.streaming = streaming;
  const server = (name: string) => streaming.servers[name];
  const w = server('workerd');
  note(
    `streaming.pass MB/s (${STREAM_MB} MB passed on unread)`,
    String(server('pass').mbPerSec),
    '',
    w ? String(w.mbPerSec) : 'n/a',
  );
  note(
    'streaming.pass host memory growth MB',
    String(server('pass').memoryGrowthMb),
    '',
    w ? String(w.memoryGrowthMb) : 'n/a',
  );
  note(`streaming.through MB/s (every chunk read in the isolate)`, String(server('through').mbPerSec));
  note('streaming.through host memory growth MB', String(server('through').memoryGrowthMb));
  const failures = Object.entries(streaming.servers).filter(([, figures]) => figures.failures > 0);
  if (failures.length > 0)
    note('streaming failures', failures.map(([name, figures]) => `${name} ${figures.failures}`).join(', '));
  if ('unavailable' in streaming.workerd)
    process.stderr.write(`  workerd unavailable, measured without it: ${streaming.workerd.unavailable}\n`);
}

machine.loadAverageAtEnd = loadAverage();
report.machine = machine;
const width = Math.max(...figures.map((row) => row[0].length));
process.stdout.write(`\n${'figure'.padEnd(width)}  ${'value'.padEnd(24)}  ${'target'.padEnd(14)}  workerd\n`);
for (const [name, value, target, workerd] of figures)
  process.stdout.write(`${name.padEnd(width)}  ${value.padEnd(24)}  ${target.padEnd(14)}  ${workerd}\n`);
process.stdout.write(
  `\n(${Math.round((Date.now() - started) / 1000)} s, node ${process.version}, ${machine.cores} cores, load ` +
    `average ${machine.loadAverageAtStart.join(' ')} at start, ${machine.loadAverageAtEnd.join(' ')} at end)\n`,
);
process.stdout.write(`${JSON.stringify(report)}\n`);

// The shares of an isolate's cold start inside one worker process, step by step, for both ways an
// integration's isolate starts: made on demand (snapshot → context → bootstrap) and claimed from
// the warm pool (realm.ts, made and warmed beforehand, off the clock). Each start runs a bundle of
// its own built as the bench's integrations are (generate.ts, bundled with sandbox-api), compiled
// from the code cache its worker made ahead (bundle-precompiler.ts, off the clock), and answers
// a fetch event and environment shaped as the host sends them. Not part of `npm test` or
// `npm run bench`; run it alone: node --no-node-snapshot test/bench/startup-shares.ts [starts]

import { rmSync } from 'node:fs';
import { join } from 'node:path';
import ivm from 'isolated-vm';
import { bundleScript } from '../../host/manifest/bundle.ts';
import { BundlePrecompiler } from '../../host/sandbox/bundle-precompiler.ts';
import * as primitives from '../../host/bridge/primitives.ts';
import { WARM_ENVIRONMENT_JSON } from '../../host/sandbox/warm-up.ts';
import { generateFixtures } from './generate.ts';
import { buildSnapshotScript } from '../../sandbox-api/runtime/build.ts';
import { bootstrapRuntime, createRuntimeSnapshot } from '../../host/sandbox/runtime-snapshot.ts';
import { realmPrimitives } from '../../host/sandbox/realm-primitives.ts';
import { prepareRealm, type PreparedRealm, type RealmOwner } from '../../host/sandbox/realm.ts';
import { percentile, round } from './stats.ts';
import { runtimeModules } from '../helpers/runtime-modules.ts';

const STARTS = Number(process.argv[2] ?? 60);
const snapshot = createRuntimeSnapshot(await buildSnapshotScript());
const runtime = { code: '', snapshot, modules: await runtimeModules() };
const OWNER: RealmOwner = {
  log: () => undefined,
  fetch: async () => ({ ok: false, code: 'TypeError', message: 'offline' }),
  fetchRead: async () => ({ ok: false, code: 'TypeError', message: 'offline' }),
  fetchCancel: () => undefined,
  setTimer: () => undefined,
  clearTimer: () => undefined,
  lateAnswer: () => false,
};

type Rows = Map<string, number[]>;
function lapper(rows: Rows): (step: string) => void {
  let last = performance.now();
  return (step) => {
    const now = performance.now();
    rows.set(step, [...(rows.get(step) ?? []), now - last]);
    last = now;
  };
}

// The bench's integrations (no two share a bundle, nor its code cache), bundled as the host does.
const fixtures = generateFixtures({ trivial: STARTS * 2 });
const bundles: string[] = [];
for (let i = 0; i < STARTS * 2; i++) {
  const name = `bench-${String(i).padStart(4, '0')}`;
  bundles.push((await bundleScript(join(fixtures, name), 'index.ts', { cacheDir: join(fixtures, '.bundles') })).code);
}
rmSync(fixtures, { recursive: true, force: true });
const URL_TEXT = 'http://127.0.0.1:8787/v1/integrations/bench/installations/inst_1';
const HEADERS = [
  ['host', '127.0.0.1:8787'],
  ['accept', '*/*'],
  ['accept-language', '*'],
  ['sec-fetch-mode', 'cors'],
  ['user-agent', 'node'],
  ['accept-encoding', 'gzip, deflate'],
];
const event = (i: number) =>
  JSON.stringify({
    type: 'fetch',
    installationId: 'inst_1',
    request: { method: 'GET', url: URL_TEXT, headers: HEADERS },
    eventId: `evt_${i}`,
  });

/** Each bundle's code cache, made as the worker makes it before the first request (off the clock). */
const precompiler = new BundlePrecompiler({ snapshot, memoryLimitMb: 128, busy: () => false });
const caches: (ivm.ExternalCopy<ArrayBuffer> | undefined)[] = [];
const precompileStarted = performance.now();
await new Promise<void>((resolve) => {
  let left = bundles.length;
  bundles.forEach((code, i) => {
    precompiler.request({
      code,
      filename: `bench-${i}.js`,
      wanted: () => true,
      done: (cache) => {
        caches[i] = cache;
        if (--left === 0) resolve();
      },
    });
  });
});
const precompileEachMs = (performance.now() - precompileStarted) / bundles.length;
const seeds = JSON.stringify([[URL_TEXT, primitives.parseUrl(URL_TEXT, undefined)]]);

/** The guest's part: compile its bundle from the cache and run it, hand it to the runtime, first dispatch. */
async function guestPart(realm: PreparedRealm, i: number, lap: (step: string) => void): Promise<void> {
  const cachedData = caches[i];
  const script = await realm.isolate.compileScript(bundles[i], {
    filename: `bench-${i}.js`,
    ...(cachedData ? { cachedData } : {}),
  });
  if ((script as { cachedDataRejected?: boolean }).cachedDataRejected === true)
    throw new Error('the precompiled code cache was rejected');
  lap('compile bundle (from its code cache)');
  const namespace = (await script.run(realm.context, { reference: true })) as ivm.Reference;
  lap('run bundle');
  await realm.setEntry.apply(undefined, [namespace.derefInto()]);
  lap('setEntry');
  await realm.dispatch.apply(undefined, [event(i), WARM_ENVIRONMENT_JSON, null, seeds], {
    arguments: { copy: true },
    result: { promise: true, copy: true },
  });
  lap('first dispatch');
}

async function onDemand(i: number, rows: Rows): Promise<void> {
  const lap = lapper(rows);
  const started = performance.now();
  const isolate = new ivm.Isolate({ memoryLimit: 128, snapshot });
  lap('new Isolate from snapshot');
  const context = await isolate.createContext();
  lap('createContext');
  const bound = realmPrimitives(() => OWNER, OWNER, runtime.modules);
  lap('bind primitives (Callbacks)');
  const api = await bootstrapRuntime(context, bound, 30_000);
  lap('__ih_bootstrap (incl. hardenRetouched)');
  const realm = {
    isolate,
    context,
    dispatch: api.getSync('dispatchWire', { reference: true }),
    drain: api.getSync('drain', { reference: true }),
    fireTimer: api.getSync('fireTimer', { reference: true }),
    setEntry: api.getSync('setEntry', { reference: true }),
  } as PreparedRealm;
  lap('runtime API references');
  await guestPart(realm, i, lap);
  rows.set('total', [...(rows.get('total') ?? []), performance.now() - started]);
  isolate.dispose();
}

async function fromPool(i: number, rows: Rows): Promise<void> {
  const realm = await prepareRealm(runtime, 128, { warm: true });
  const lap = lapper(rows);
  const started = performance.now();
  realm.claim(OWNER);
  lap('claim');
  await guestPart(realm, i, lap);
  rows.set('total', [...(rows.get('total') ?? []), performance.now() - started]);
  realm.isolate.dispose();
}

const demand: Rows = new Map();
const pooled: Rows = new Map();
const preparing: number[] = [];
// Interleaved, so both see the same machine.
for (let i = 0; i < STARTS; i++) {
  await onDemand(i, demand);
  const before = performance.now();
  await fromPool(STARTS + i, pooled);
  preparing.push(performance.now() - before - (pooled.get('total')?.at(-1) ?? 0));
}
const show = (title: string, rows: Rows) => {
  console.log(`\n${title} (${STARTS} starts, ms)`);
  for (const [step, samples] of rows)
    console.log(
      `  ${step.padEnd(42)} ` +
        `p50 ${String(round(percentile(samples, 50))).padStart(6)}   ` +
        `p90 ${String(round(percentile(samples, 90))).padStart(6)}`,
    );
};
show('isolate made on demand', demand);
show('realm claimed from the warm pool', pooled);
console.log(`\n  preparing one warmed realm (off the critical path)  p50 ${round(percentile(preparing, 50))}`);
console.log(`  precompiling one bundle (off the critical path)    mean ${round(precompileEachMs)}`);

// The shares of an isolate's cold start inside one worker process, step by step, for both ways an
// integration's isolate starts: made on demand (snapshot → context → bootstrap) and claimed from
// the warm pool (realm.ts, made and warmed beforehand, off the clock). Not part of `npm test` or
// `npm run bench`; run it alone: node --no-node-snapshot test/bench/startup-shares.ts [starts]

import ivm from 'isolated-vm';
import { buildSnapshotScript } from '../../sandbox-api/runtime/build.ts';
import { bootstrapRuntime, createRuntimeSnapshot } from '../../host/sandbox/runtime-snapshot.ts';
import { prepareRealm, type PreparedRealm, type RealmOwner } from '../../host/sandbox/realm.ts';
import { percentile, round } from './stats.ts';

const STARTS = Number(process.argv[2] ?? 60);
const snapshot = createRuntimeSnapshot(await buildSnapshotScript());
const runtime = { code: '', snapshot };
const OWNER: RealmOwner = { log: () => undefined, fetch: async () => ({ ok: false, code: 'TypeError', message: 'offline' }), setTimer: () => undefined, clearTimer: () => undefined };

type Rows = Map<string, number[]>;
function lapper(rows: Rows): (step: string) => void {
  let last = performance.now();
  return (step) => {
    const now = performance.now();
    rows.set(step, [...(rows.get(step) ?? []), now - last]);
    last = now;
  };
}

/** A bundle of the shape the bench generates, different for each start (no shared code cache). */
const bundle = (i: number) => `"use strict"; ({ [Symbol.for('sandbox-api.integration')]: async (envelope, host) => new host.Response('ok ${i}') })`;
const event = (i: number) => JSON.stringify({ type: 'fetch', eventId: `evt_${i}`, installationId: 'inst_1', request: { method: 'GET', url: 'https://example.invalid/', headers: [] } });

/** The guest's part: compile and run its bundle, hand it to the runtime, first dispatch. */
async function guestPart(realm: PreparedRealm, i: number, lap: (step: string) => void): Promise<void> {
  const script = await realm.isolate.compileScript(bundle(i), { filename: `bench-${i}.js`, produceCachedData: true });
  lap('compile bundle (+ code cache)');
  const namespace = (await script.run(realm.context, { reference: true })) as ivm.Reference;
  lap('run bundle');
  await realm.setEntry.apply(undefined, [namespace.derefInto()]);
  lap('setEntry');
  await realm.dispatch.apply(undefined, [event(i), '{}', null, null], { arguments: { copy: true }, result: { promise: true, copy: true } });
  lap('first dispatch');
}

async function onDemand(i: number, rows: Rows): Promise<void> {
  const lap = lapper(rows);
  const started = performance.now();
  const isolate = new ivm.Isolate({ memoryLimit: 128, snapshot });
  lap('new Isolate from snapshot');
  const context = await isolate.createContext();
  lap('createContext');
  const callbacks = Array.from({ length: 8 }, () => new ivm.Callback(() => undefined));
  const fetch = new ivm.Reference(OWNER.fetch);
  lap('bind primitives (Callbacks)');
  const api = await bootstrapRuntime(context, callbacks, fetch, 30_000);
  lap('__ih_bootstrap (incl. hardenRetouched)');
  const realm = {
    isolate,
    context,
    dispatch: await api.get('dispatchWire', { reference: true }),
    drain: await api.get('drain', { reference: true }),
    fireTimer: await api.get('fireTimer', { reference: true }),
    setEntry: await api.get('setEntry', { reference: true }),
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
  for (const [step, samples] of rows) console.log(`  ${step.padEnd(42)} p50 ${String(round(percentile(samples, 50))).padStart(6)}   p90 ${String(round(percentile(samples, 90))).padStart(6)}`);
};
show('isolate made on demand', demand);
show('realm claimed from the warm pool', pooled);
console.log(`\n  preparing one warmed realm (off the critical path)  p50 ${round(percentile(preparing, 50))}`);

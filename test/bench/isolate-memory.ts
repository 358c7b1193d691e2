// Where a live isolate's memory goes, stage by stage, in one process (no host, no IPC): N isolates
// are kept alive at each stage and the process's resident memory and isolated-vm's heap figures
// are read per isolate. Not part of `npm run bench`'s JSON; run it by hand (docs/performance.md):
//   node_modules/.bin/node --no-node-snapshot --expose-gc test/bench/isolate-memory.ts [N] [--memory-limit=MB]
// [--empty] [--no-context] [--cache] [--probe-gc] [--idle-wait=ms] [--variant=…] V8 flags given to node apply to the
// isolates as they apply to a sandbox worker's: give it the workers' own (host/sandbox/v8-flags.ts) to measure what a
// worker does. --expose-gc lets it collect its own heap between stages (and gives the isolates `gc`, which --probe-gc
// calls).

import ivm from 'isolated-vm';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSnapshotScript } from '../../sandbox-api/runtime/build.ts';
import { bundleScript } from '../../host/manifest/bundle.ts';
import { createRuntimeSnapshot, bootstrapRuntime } from '../../host/sandbox/runtime-snapshot.ts';
import { generateFixtures } from './generate.ts';
import { WORKER_V8_FLAGS } from '../../host/sandbox/v8-flags.ts';
import { realmPrimitives, type RuntimeModuleSources } from '../../host/sandbox/realm-primitives.ts';
import type { RealmOwner } from '../../host/sandbox/realm.ts';
import { runtimeModules } from '../helpers/runtime-modules.ts';

const args = process.argv.slice(2);
const count = Number(args.find((arg) => /^\d+$/.test(arg)) ?? 200);
const memoryLimit = Number(args.find((arg) => arg.startsWith('--memory-limit='))?.split('=')[1] ?? 128);
const gc = (globalThis as { gc?: () => void }).gc;

function rssKb(): number {
  const status = readFileSync('/proc/self/status', 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]);
}

async function settle(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc?.();
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return rssKb();
}

interface Row {
  stage: string;
  rssKbPerIsolate: number;
  physicalKb: number;
  usedKb: number;
  totalKb: number;
  mallocedKb: number;
  externalKb: number;
}

async function heapKb(isolates: ivm.Isolate[]): Promise<Omit<Row, 'stage' | 'rssKbPerIsolate'>> {
  const sums = { physicalKb: 0, usedKb: 0, totalKb: 0, mallocedKb: 0, externalKb: 0 };
  for (const isolate of isolates) {
    const stats = await isolate.getHeapStatistics();
    sums.physicalKb += stats.total_physical_size / 1024;
    sums.usedKb += stats.used_heap_size / 1024;
    sums.totalKb += stats.total_heap_size / 1024;
    sums.mallocedKb += stats.malloced_memory / 1024;
    sums.externalKb += stats.externally_allocated_size / 1024;
  }
  const per = (value: number) => Math.round(value / isolates.length);
  return {
    physicalKb: per(sums.physicalKb),
    usedKb: per(sums.usedKb),
    totalKb: per(sums.totalKb),
    mallocedKb: per(sums.mallocedKb),
    externalKb: per(sums.externalKb),
  };
}

/** A realm's primitives (realm-primitives.ts) with an owner that does nothing. */
const primitivesFor = (modules: RuntimeModuleSources) => {
  const owner: RealmOwner = {
    log: () => undefined,
    fetch: async () => ({ ok: false, code: 'TypeError', message: 'no' }),
    fetchRead: async () => ({ ok: false, code: 'TypeError', message: 'no' }),
    fetchCancel: () => undefined,
    setTimer: () => undefined,
    clearTimer: () => undefined,
    lateAnswer: () => false,
  };
  return realmPrimitives(() => owner, owner, modules);
};

async function main(): Promise<void> {
  const missing = WORKER_V8_FLAGS.filter((flag) => !process.execArgv.includes(flag));
  if (missing.length > 0) console.warn(`not a sandbox worker's V8 flags: ${missing.join(' ')} missing`);
  const fixtures = generateFixtures({ trivial: count, prefix: 'mem' });
  const bundles: string[] = [];
  for (let i = 0; i < count; i++) {
    const name = `mem-${String(i).padStart(4, '0')}`;
    bundles.push((await bundleScript(join(fixtures, name), 'index.ts', { cacheDir: join(fixtures, '.cache') })).code);
  }
  let snapshotScript = await buildSnapshotScript();
  // Experiments only (never the runtime that ships): the bootstrap without one of its steps.
  const variant = args.find((arg) => arg.startsWith('--variant='))?.split('=')[1];
  if (variant === 'no-harden')
    snapshotScript = snapshotScript.replace(/hardenRetouched\(\);\s*return api;/, 'return api;');
  if (variant === 'no-bind')
    snapshotScript = snapshotScript.replace(/removeGlobals\(\);\s*hardenRetouched\(\);\s*return api;/, 'return api;');
  const retouchedBody = new RegExp(
    /makeBuiltInsOverridable\(\);\s*const roots = \[\s*/.source +
      /\.\.\.retouchedIntrinsics\(\),\s*\.\.\.hiddenIntrinsics\(\),\s*/.source +
      /(\.\.\.globalValues\(\)[^\n]*)\s*\];/.source,
  );
  if (variant === 'only-retouched')
    snapshotScript = snapshotScript.replace(retouchedBody, 'const roots = [...retouchedIntrinsics()];');
  if (variant === 'only-hidden')
    snapshotScript = snapshotScript.replace(retouchedBody, 'const roots = [...hiddenIntrinsics()];');
  if (variant === 'only-globals') snapshotScript = snapshotScript.replace(retouchedBody, 'const roots = [$1];');
  if (variant === 'only-overridable')
    snapshotScript = snapshotScript.replace(retouchedBody, 'makeBuiltInsOverridable(); const roots = [];');
  if (variant === 'only-callsite')
    snapshotScript = snapshotScript.replace(retouchedBody, 'callSitePrototype(); const roots = [];');
  if (variant === 'only-stack')
    snapshotScript = snapshotScript.replace(retouchedBody, 'stackAccessors(); const roots = [];');
  if (variant !== undefined && snapshotScript === (await buildSnapshotScript()))
    throw new Error(`variant ${variant} did not apply`);
  const snapshot = createRuntimeSnapshot(snapshotScript);
  const modules = await runtimeModules();
  const rows: Row[] = [];
  const base = await settle();

  // Empty isolates (`--empty`) and snapshot isolates with only isolated-vm's own default context
  // (`--no-context`) are measured alone, each in its own run: memory freed on disposal is not
  // always returned to the system, and would hide what later stages take.
  if (args.includes('--empty') || args.includes('--no-context')) {
    const empty = args.includes('--empty');
    const isolates: ivm.Isolate[] = [];
    const contexts: ivm.Context[] = [];
    for (let i = 0; i < count; i++) {
      const isolate = new ivm.Isolate(empty ? { memoryLimit } : { memoryLimit, snapshot });
      if (empty) contexts.push(await isolate.createContext());
      isolates.push(isolate);
    }
    rows.push({
      stage: empty ? 'empty isolate + context' : 'snapshot isolate, no context',
      rssKbPerIsolate: Math.round(((await settle()) - base) / count),
      ...(await heapKb(isolates)),
    });
    console.log(JSON.stringify({ count, memoryLimit, execArgv: process.execArgv, rows }));
    return;
  }
  const isolates: ivm.Isolate[] = [];
  const contexts: ivm.Context[] = [];
  for (let i = 0; i < count; i++) {
    const isolate = new ivm.Isolate({ memoryLimit, snapshot });
    contexts.push(await isolate.createContext());
    isolates.push(isolate);
  }
  const stage = async (name: string) =>
    rows.push({
      stage: name,
      rssKbPerIsolate: Math.round(((await settle()) - base) / count),
      ...(await heapKb(isolates)),
    });
  await stage('snapshot isolate + context');
  const apis: ivm.Reference[] = [];
  for (let i = 0; i < count; i++) {
    apis.push(await bootstrapRuntime(contexts[i], primitivesFor(modules), 30_000));
  }
  await stage('after bootstrap');
  const dispatchers: ivm.Reference[] = [];
  for (let i = 0; i < count; i++) {
    const setEntry = (await apis[i].get('setEntry', { reference: true })) as ivm.Reference;
    dispatchers.push((await apis[i].get('dispatchWire', { reference: true })) as ivm.Reference);
    const script = await isolates[i].compileScript(bundles[i], {
      filename: `mem-${i}.js`,
      ...(args.includes('--cache') ? { produceCachedData: true } : {}),
    });
    const namespace = (await script.run(contexts[i], {
      reference: true,
      ...(args.includes('--timeout') ? { timeout: 10_000 } : {}),
    })) as ivm.Reference;
    await setEntry.apply(undefined, [namespace.derefInto()]);
  }
  await stage('after the bundle ran');
  const url = 'http://127.0.0.1/';
  const record = {
    href: url,
    origin: 'http://127.0.0.1',
    protocol: 'http:',
    username: '',
    password: '',
    host: '127.0.0.1',
    hostname: '127.0.0.1',
    port: '',
    pathname: '/',
    search: '',
    hash: '',
  };
  for (let i = 0; i < count; i++) {
    const event = {
      type: 'fetch',
      eventId: `evt_${i}`,
      installationId: 'inst_1',
      request: { method: 'GET', url, headers: [['accept', '*/*']] },
    };
    await dispatchers[i].apply(
      undefined,
      [JSON.stringify(event), '{"installation":{"id":"inst_1"}}', null, JSON.stringify([[url, record]])],
      {
        arguments: { copy: true },
        result: { promise: true, copy: true },
      },
    );
  }
  await stage('after one dispatch');
  if (args.includes('--probe-gc')) {
    for (const context of contexts) await context.eval('typeof gc === "function" ? gc() : undefined');
    await stage('after a full GC in each (probe)');
    for (const context of contexts) await context.eval('typeof gc === "function" ? gc({ type: "minor" }) : undefined');
    await stage('after a minor GC in each (probe)');
  }
  const idleWaitMs = Number(args.find((arg) => arg.startsWith('--idle-wait='))?.split('=')[1] ?? 0);
  if (idleWaitMs > 0) {
    await new Promise((resolve) => setTimeout(resolve, idleWaitMs));
    await stage(`idle ${idleWaitMs} ms later`);
  }
  console.log(JSON.stringify({ count, memoryLimit, execArgv: process.execArgv, rows }));
  console.table(rows);
  for (const isolate of isolates) isolate.dispose();
}

await main();

// The worker's bundle precompiler: it makes each registered bundle's V8 code cache ahead of the
// first start, one bundle at a time, pausing while a dispatch waits (and, where the worker asks,
// until its quiet window has passed); an integration's first start then compiles from that cache
// (and V8 accepts it). Bundles no longer wanted are skipped, a bundle that fails to compile gets no
// cache without stopping the others, and the compiling isolate is given back once the queue is empty.
import { describe, expect, it } from 'vitest';
import ivm from 'isolated-vm';
import { BundlePrecompiler, type PrecompileJob } from '../../../host/sandbox/bundle-precompiler.ts';
import { IntegrationIsolate, type WireEnvelope } from '../../../host/sandbox/isolate.ts';
import { createRuntimeSnapshot } from '../../../host/sandbox/runtime-snapshot.ts';
import { buildRuntimeScript, buildSnapshotScript } from '../../../sandbox-api/runtime/build.ts';
import { bundleIntegration, envelope } from '../sandbox-api/harness.ts';
import { sandboxTestLimits } from './test-limits.ts';
import { runtimeModules } from '../../helpers/runtime-modules.ts';

const LIMITS = sandboxTestLimits();

function request(): WireEnvelope {
  const { event, environment, fetchBody } = envelope({
    type: 'fetch',
    request: { method: 'GET', url: 'https://precompile.test/', headers: [] },
  });
  return {
    eventId: event.eventId,
    installationId: String(event.installationId ?? ''),
    eventJson: JSON.stringify(event),
    environmentJson: JSON.stringify(environment),
    fetchBody,
    requestUrl: 'https://precompile.test/',
  };
}

/** A precompiler whose deferred work runs when the test says so. */
function harness(snapshot?: ivm.ExternalCopy<ArrayBuffer>, maxHeldBytes?: number, quiet?: { waitMs: number }) {
  const queue: (() => void)[] = [];
  const delays: number[] = [];
  const state = { busy: false };
  const precompiler = new BundlePrecompiler({
    snapshot,
    memoryLimitMb: 64,
    maxHeldBytes,
    busy: () => state.busy,
    ...(quiet ? { waitMs: () => quiet.waitMs } : {}),
    defer: (work, delayMs) => {
      delays.push(delayMs);
      queue.push(work);
    },
  });
  const results: Record<string, ivm.ExternalCopy<ArrayBuffer> | undefined | 'pending'> = {};
  const job = (name: string, code: string, wanted = () => true): PrecompileJob => {
    results[name] = 'pending';
    return { code, filename: `${name}.js`, wanted, done: (cache) => (results[name] = cache) };
  };
  /** Runs deferred work (and the compiles it starts) until `done` holds (or, without one, a few turns). */
  const settle = async (done?: () => boolean) => {
    const until = performance.now() + 20_000;
    for (let round = 0; done === undefined ? round < 20 : !done() && performance.now() < until; round++) {
      await new Promise((resolve) => setTimeout(resolve, 1));
      for (const work of queue.splice(0)) work();
    }
  };
  const finished = () => Object.values(results).every((result) => result !== 'pending');
  const compilingIsolate = () => (precompiler as unknown as { isolate: ivm.Isolate | null }).isolate;
  return { precompiler, state, results, job, settle, finished, compilingIsolate, delays };
}

describe('bundle precompiler', () => {
  it("makes a cache that the integration's first start compiles from, and V8 accepts", async () => {
    const bundle = await bundleIntegration(`
      import { createIntegration } from 'sandbox-api';
      export default createIntegration({ fetch: () => new Response('from the cache') });`);
    const snapshot = createRuntimeSnapshot(await buildSnapshotScript());
    const runtime = { code: await buildRuntimeScript(), snapshot, modules: await runtimeModules() };
    const isolate = new IntegrationIsolate('precompiled', bundle, runtime, LIMITS, {
      fetch: async () => ({ ok: false as const, code: 'TypeError', message: 'no fetch here' }),
      lateLog: () => undefined,
    });
    const { precompiler, results, job, settle, finished, compilingIsolate } = harness(snapshot);
    expect(isolate.wantsCodeCache).toBe(true);
    precompiler.request(job('precompiled', bundle));
    await settle(() => finished() && compilingIsolate() === null);
    const cache = results.precompiled;
    expect(cache).toBeInstanceOf(ivm.ExternalCopy);
    expect(isolate.offerCodeCache(bundle, cache as ivm.ExternalCopy<ArrayBuffer>)).toBe(true);
    expect(isolate.wantsCodeCache).toBe(false);
    // The compiling isolate is given back once nothing is queued.
    expect(compilingIsolate()).toBeNull();
    const { response } = await isolate.dispatch(request());
    expect(new TextDecoder().decode(response.body)).toBe('from the cache');
    // A rejected cache is dropped at the start (isolate.ts): still held means V8 took it.
    expect((isolate as unknown as { bundleCache?: unknown }).bundleCache).toBe(cache);
    isolate.dispose('done');
  });

  it('waits while a dispatch of the worker waits, and goes on when resumed', async () => {
    const { precompiler, state, results, job, settle, finished } = harness();
    state.busy = true;
    precompiler.request(job('a', '({ a: 1 })'));
    await settle();
    expect(results.a).toBe('pending');
    state.busy = false;
    precompiler.resume();
    await settle(finished);
    expect(results.a).toBeInstanceOf(ivm.ExternalCopy);
  });

  it('with a quiet window, creates no compiling isolate before the window has passed, then compiles', async () => {
    const quiet = { waitMs: 4 };
    const { precompiler, results, job, settle, finished, compilingIsolate, delays } = harness(
      undefined,
      undefined,
      quiet,
    );
    precompiler.request(job('moved', '({ moved: 1 })'));
    await settle();
    // Asked again after what is left of the window, every time, and nothing made meanwhile.
    expect(results.moved).toBe('pending');
    expect(compilingIsolate()).toBeNull();
    expect(delays[0]).toBe(0);
    expect(delays.slice(1).length).toBeGreaterThan(0);
    expect(delays.slice(1).every((delay) => delay === 4)).toBe(true);
    quiet.waitMs = 0;
    await settle(finished);
    expect(results.moved).toBeInstanceOf(ivm.ExternalCopy);
  });

  it('skips bundles no longer wanted, and a bundle that cannot compile stops nothing', async () => {
    const { precompiler, results, job, settle } = harness();
    precompiler.request(job('replaced', '({ old: 1 })', () => false));
    precompiler.request(job('broken', '({ unterminated: '));
    precompiler.request(job('fine', '({ fine: 1 })'));
    await settle(() => results.broken !== 'pending' && results.fine !== 'pending');
    expect(results.replaced).toBe('pending');
    expect(results.broken).toBeUndefined();
    expect(results.fine).toBeInstanceOf(ivm.ExternalCopy);
  });

  it('takes a cache only for the exact text it was made from', async () => {
    const snapshot = createRuntimeSnapshot(await buildSnapshotScript());
    const { precompiler, results, job, settle, finished } = harness(snapshot);
    precompiler.request(job('other', '({ value: 1 })'));
    await settle(finished);
    const isolate = new IntegrationIsolate(
      'exact',
      '({ value: 2 })',
      { code: await buildRuntimeScript(), snapshot, modules: await runtimeModules() },
      LIMITS,
      {
        fetch: async () => ({ ok: false as const, code: 'TypeError', message: 'no fetch here' }),
        lateLog: () => undefined,
      },
    );
    expect(isolate.offerCodeCache('({ value: 1 })', results.other as ivm.ExternalCopy<ArrayBuffer>)).toBe(false);
    expect(isolate.wantsCodeCache).toBe(true);
  });

  it(
    'makes no cache while isolated-vm already holds its limit outside isolates: those bundles compile at their ' +
      'starts',
    async () => {
      const { precompiler, results, job, settle, finished, compilingIsolate } = harness(undefined, 1);
      const held = new ivm.ExternalCopy(new ArrayBuffer(16));
      try {
        precompiler.request(job('first', 'globalThis.a = 1;'));
        precompiler.request(job('second', 'globalThis.b = 2;'));
        await settle(finished);
        expect(results).toEqual({ first: undefined, second: undefined });
        expect(compilingIsolate()).toBeNull();
      } finally {
        held.release();
      }
    },
  );
});

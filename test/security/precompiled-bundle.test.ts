// A sandbox worker compiles each registered bundle before its first request, to make V8's code
// cache of it (bundle-precompiler.ts). Compiling must run none of the guest's code: on a host
// restarted on its data (no setup event starts an isolate), a probe whose top level logs, marks the
// global object and notes the time has been precompiled, yet has no isolate and no line until its
// first request, and then its top level runs once, after that request was sent, in its own isolate.
// And a cache reaches only the bundle it was made from: V8 checks a cache against its source's
// length alone, so a cache of another bundle of the same length would run that bundle's code.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import ivm from 'isolated-vm';
import { endpointOf, startTestHost, waitFor, type TestHost } from '../helpers/host.ts';
import { BundlePrecompiler } from '../../host/sandbox/bundle-precompiler.ts';
import { IntegrationIsolate } from '../../host/sandbox/isolate.ts';
import { createRuntimeSnapshot } from '../../host/sandbox/runtime-snapshot.ts';
import { buildRuntimeScript, buildSnapshotScript } from '../../sandbox-api/runtime/build.ts';
import { bundleIntegration, envelope } from '../unit/sandbox-api/harness.ts';
import { sandboxTestLimits } from '../unit/sandbox/test-limits.ts';
import { runtimeModules } from '../helpers/runtime-modules.ts';

const PROBE = 'precompile-probe';
const TOP_LEVEL_LINE = 'precompile-probe: top level ran';
let dataDir = '';
let host: TestHost | undefined;

/** This integration's value of a per-integration counter of /metrics (0 when absent). */
async function counter(metric: string): Promise<number> {
  const text = await (await host!.admin('/metrics')).text();
  const match = new RegExp(`^integration_host_${metric}\\{integration="${PROBE}"\\} (\\d+)`, 'm').exec(text);
  return match === null ? 0 : Number(match[1]);
}

const options = () => ({
  dirs: ['test/fixtures/precompile-probe'],
  workers: 1,
  dataPath: path.join(dataDir, 'host.db'),
});

beforeAll(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'ih-precompile-'));
  // The first host installs the probe (its setup event starts an isolate); the test runs on the second.
  const installing = await startTestHost(options());
  await installing.close();
  host = await startTestHost(options());
}, 60_000);
afterAll(async () => {
  await host?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('bundles compiled ahead of their first request', () => {
  it('run none of their code until that request, then once, in their own isolate', async () => {
    await waitFor(async () => (await counter('precompiled_bundles_total')) === 1, 30_000);
    const precompiledBy = Date.now();
    expect(await counter('isolate_starts_total')).toBe(0);
    expect(host!.logs.some((line) => line.includes(TOP_LEVEL_LINE))).toBe(false);
    const response = await fetch(endpointOf(host!, PROBE));
    expect(response.status).toBe(200);
    const answer = (await response.json()) as { loadedAt: number; runs: number };
    expect(answer.runs).toBe(1);
    expect(answer.loadedAt).toBeGreaterThanOrEqual(precompiledBy);
    expect(await counter('isolate_starts_total')).toBe(1);
    const [event] = (await host!.services.listEvents(PROBE, { limit: 1 })).items;
    expect(event.logs.map((line) => line.text)).toEqual([`${TOP_LEVEL_LINE} (1)`]);
  });
});

describe('the precompiler', () => {
  it('only compiles: a bundle whose top level never returns gets its cache', async () => {
    let cache: ivm.ExternalCopy<ArrayBuffer> | undefined;
    const precompiler = new BundlePrecompiler({ memoryLimitMb: 64, busy: () => false });
    precompiler.request({
      code: 'globalThis.ran = true; for (;;) {}',
      filename: 'endless.js',
      wanted: () => true,
      done: (made) => (cache = made),
    });
    // Run, it would never finish and no cache would ever come.
    await waitFor(() => cache !== undefined, 20_000);
    expect(cache!.copy().byteLength).toBeGreaterThan(0);
    precompiler.close();
  });
});

describe("a precompiled bundle's code cache", () => {
  const LIMITS = sandboxTestLimits();

  it('is refused by a bundle of the same length but another text (a reload: Hello became Howdy)', async () => {
    const source = (answer: string) =>
      bundleIntegration(`
      import { createIntegration } from 'sandbox-api';
      export default createIntegration({ fetch: () => new Response('${answer}') });`);
    const [mine, theirs] = await Promise.all([source('Howdy'), source('Hello')]);
    expect(theirs.length).toBe(mine.length);
    const snapshot = createRuntimeSnapshot(await buildSnapshotScript());
    let cache: ivm.ExternalCopy<ArrayBuffer> | undefined;
    const precompiler = new BundlePrecompiler({ snapshot, memoryLimitMb: 64, busy: () => false });
    precompiler.request({ code: theirs, filename: 'theirs.js', wanted: () => true, done: (made) => (cache = made) });
    await waitFor(() => cache !== undefined, 20_000);
    const isolate = new IntegrationIsolate(
      'reloaded',
      mine,
      { code: await buildRuntimeScript(), snapshot, modules: await runtimeModules() },
      LIMITS,
      {
        fetch: async () => ({ ok: false as const, code: 'TypeError', message: 'no fetch here' }),
        lateLog: () => undefined,
      },
    );
    // The old build's cache, late, offered to the new build (the worker also checks that the
    // build it was made for is still the registered one; this is the second guard).
    expect(isolate.offerCodeCache(theirs, cache!)).toBe(false);
    const { event, environment, fetchBody } = envelope({
      type: 'fetch',
      request: { method: 'GET', url: 'https://reloaded.test/', headers: [] },
    });
    const { response } = await isolate.dispatch({
      eventId: event.eventId,
      installationId: '',
      eventJson: JSON.stringify(event),
      environmentJson: JSON.stringify(environment),
      fetchBody,
      requestUrl: 'https://reloaded.test/',
    });
    expect(new TextDecoder().decode(response.body)).toBe('Howdy');
    isolate.dispose('done');
    precompiler.close();
  });
});

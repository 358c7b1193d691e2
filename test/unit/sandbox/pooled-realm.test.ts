// Realms made ahead of time for the warm pool (realm.ts), from the runtime snapshot and without
// one (a worker whose snapshot could not be built): an integration that claims one runs in it with
// its own primitives, under the same memory limit as any isolate; a realm serves one integration
// once and goes with its isolate; the warm-up's stand-in entry is gone before the guest arrives.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { IntegrationIsolate, type WireEnvelope } from '../../../host/sandbox/isolate.ts';
import { prepareRealm, type PreparedRealm, type RuntimeSource } from '../../../host/sandbox/realm.ts';
import { createRuntimeSnapshot } from '../../../host/sandbox/runtime-snapshot.ts';
import type { BridgeRequest } from '../../../sandbox-api/runtime/contract.ts';
import { buildRuntimeScript, buildSnapshotScript } from '../../../sandbox-api/runtime/build.ts';
import { bundleIntegration, envelope } from '../sandbox-api/harness.ts';
import { sandboxTestLimits } from './test-limits.ts';
import { runtimeModules } from '../../helpers/runtime-modules.ts';

const LIMITS = sandboxTestLimits({ memoryLimitMb: 32, warmIsolatesPerWorker: 2 });

const runtimes: Record<string, RuntimeSource> = {};
beforeAll(async () => {
  const code = await buildRuntimeScript();
  runtimes['from the snapshot'] = {
    code,
    snapshot: createRuntimeSnapshot(await buildSnapshotScript()),
    modules: await runtimeModules(),
  };
  runtimes['without a snapshot'] = { code, modules: await runtimeModules() };
});

const cleanup: (() => void)[] = [];
afterEach(() => {
  for (const dispose of cleanup.splice(0)) dispose();
});

function request(url = 'https://pool.test/'): WireEnvelope {
  const { event, environment, fetchBody } = envelope({ type: 'fetch', request: { method: 'GET', url, headers: [] } });
  return {
    eventId: event.eventId,
    installationId: String(event.installationId ?? ''),
    eventJson: JSON.stringify(event),
    environmentJson: JSON.stringify(environment),
    fetchBody,
    requestUrl: url,
  };
}

async function pooled(runtime: RuntimeSource, memoryLimitMb = LIMITS.memoryLimitMb): Promise<PreparedRealm> {
  const realm = await prepareRealm(runtime, memoryLimitMb, { warm: true });
  cleanup.push(() => {
    if (!realm.isolate.isDisposed) realm.isolate.dispose();
  });
  return realm;
}

async function integration(
  name: string,
  source: string,
  runtime: RuntimeSource,
  realm: PreparedRealm | undefined,
  fetched: string[] = [],
): Promise<IntegrationIsolate> {
  let offered = realm;
  const isolate = new IntegrationIsolate(name, await bundleIntegration(source), runtime, LIMITS, {
    fetch: async (request: BridgeRequest) => {
      fetched.push(`${name} ${request.url}`);
      return { ok: false, code: 'TypeError', message: 'offline' };
    },
    lateLog: () => undefined,
    takeRealm: () => {
      const taken = offered;
      offered = undefined;
      return taken;
    },
  });
  cleanup.push(() => isolate.dispose('test over'));
  return isolate;
}

const ANSWERING = `
  import { createIntegration } from 'sandbox-api';
  export default createIntegration({
    async fetch(request) {
      console.log('hello from ' + new URL(request.url).hostname);
      await fetch('https://egress.test/' + new URL(request.url).hostname).catch(() => undefined);
      return new Response('answered');
    },
  });`;

describe.each(['from the snapshot', 'without a snapshot'])('a pooled realm %s', (which) => {
  it('serves the integration that claims it, with its own log and fetch', async () => {
    const realm = await pooled(runtimes[which]);
    const fetched: string[] = [];
    const isolate = await integration('claimer', ANSWERING, runtimes[which], realm, fetched);
    const { response, logs } = await isolate.dispatch(request('https://claimer.test/'));
    expect(new TextDecoder().decode(response.body)).toBe('answered');
    expect(realm.claimed).toBe(true);
    expect(logs.map((line) => line.text)).toEqual(['hello from claimer.test']);
    expect(fetched).toEqual(['claimer https://egress.test/claimer.test']);
  });

  it('is claimed once, and goes with the isolate: a reset starts a new realm, never the old one again', async () => {
    const realm = await pooled(runtimes[which]);
    const isolate = await integration('once', ANSWERING, runtimes[which], realm);
    await isolate.dispatch(request());
    expect(() =>
      realm.claim({
        log() {},
        fetch: async () => ({ ok: false, code: 'TypeError', message: 'x' }),
        fetchRead: async () => ({ ok: false, code: 'TypeError', message: 'x' }),
        fetchCancel() {},
        setTimer() {},
        clearTimer() {},
        lateAnswer: () => false,
      }),
    ).toThrow(/claimed already/);
    isolate.dispose('reset');
    expect(realm.isolate.isDisposed).toBe(true);
    // The next start makes its own realm (the hook offers nothing more) and answers.
    const { response } = await isolate.dispatch(request());
    expect(response.status).toBe(200);
  });

  it('applies the memory limit to the claiming integration like to any isolate', async () => {
    const realm = await pooled(runtimes[which], LIMITS.memoryLimitMb);
    const isolate = await integration(
      'hoarder',
      `
      import { createIntegration } from 'sandbox-api';
      const hoard = [];
      export default createIntegration({ fetch() { for (;;) hoard.push(new Array(100_000).fill(hoard.length)); } });`,
      runtimes[which],
      realm,
    );
    await expect(isolate.dispatch(request())).rejects.toMatchObject({ failure: 'memory' });
    expect(realm.isolate.isDisposed).toBe(true);
  });

  it('keeps nothing of the warm-up: no entry is set until the guest sets its own', async () => {
    const realm = await pooled(runtimes[which]);
    realm.claim({
      log() {},
      fetch: async () => ({ ok: false, code: 'TypeError', message: 'x' }),
      fetchRead: async () => ({ ok: false, code: 'TypeError', message: 'x' }),
      fetchCancel() {},
      setTimer() {},
      clearTimer() {},
      lateAnswer: () => false,
    });
    const { eventJson, environmentJson } = request();
    const [meta] = (await realm.dispatch.apply(undefined, [eventJson, environmentJson, null, null], {
      arguments: { copy: true },
      result: { promise: true, copy: true },
    })) as [string, unknown];
    expect(JSON.parse(meta)).toMatchObject({ status: 500, verdict: 'bad-entry' });
  });
});

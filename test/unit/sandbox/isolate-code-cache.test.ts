// An integration's bundle gets V8's code cache from its second isolate on (after an eviction or a
// reset), never from its first: making the cache costs the isolate that makes it memory for as
// long as it lives, and most integrations start once. The third start compiles from the cache.
import { describe, expect, it } from 'vitest';
import ivm from 'isolated-vm';
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
    request: { method: 'GET', url: 'https://cache.test/', headers: [] },
  });
  return {
    eventId: event.eventId,
    installationId: String(event.installationId ?? ''),
    eventJson: JSON.stringify(event),
    environmentJson: JSON.stringify(environment),
    fetchBody,
    requestUrl: 'https://cache.test/',
  };
}

describe("a bundle's code cache", () => {
  it('is made by the second isolate of an integration, not the first, and used by the third', async () => {
    const bundle = await bundleIntegration(`
      import { createIntegration } from 'sandbox-api';
      export default createIntegration({ fetch: () => new Response('answered') });`);
    const runtime = {
      code: await buildRuntimeScript(),
      snapshot: createRuntimeSnapshot(await buildSnapshotScript()),
      modules: await runtimeModules(),
    };
    const isolate = new IntegrationIsolate('cache-test', bundle, runtime, LIMITS, {
      fetch: async () => ({ ok: false as const, code: 'TypeError', message: 'no fetch here' }),
      lateLog: () => undefined,
    });
    // The cache the isolate holds for its next start (a private field: nothing else shows it).
    const cache = () => (isolate as unknown as { bundleCache?: ivm.ExternalCopy<ArrayBuffer> }).bundleCache;
    const held: (number | undefined)[] = [];
    let third: ivm.ExternalCopy<ArrayBuffer> | undefined;
    for (let start = 0; start < 3; start++) {
      if (start === 2) third = cache();
      const { response } = await isolate.dispatch(request());
      expect(new TextDecoder().decode(response.body)).toBe('answered');
      held.push(cache()?.copy().byteLength);
      isolate.dispose('next start');
    }
    expect(held[0]).toBeUndefined();
    expect(held[1]).toBeGreaterThan(0);
    // The third start compiled from that cache and V8 accepted it (a rejected cache is dropped).
    expect(cache()).toBe(third);
  });
});

// A failed dispatch carries what its isolate executed in the busy period (`executedMs`), the
// supervisor's evidence that a timeout or memory kill burned CPU (demotion.ts) rather than waited:
// a spinning guest's timeout and an allocation storm's memory kill carry it, a guest that only
// awaits until its deadline does not. The memory limit disposes the isolate before anything can read
// it, so that evidence is the hog sampler's last reading, sampled here as the worker does.
import { afterEach, describe, expect, it } from 'vitest';
import { IntegrationIsolate, type WireEnvelope } from '../../../host/sandbox/isolate.ts';
import type { SandboxLimits } from '../../../host/sandbox/messages.ts';
import { CPU_EVIDENCE_MS } from '../../../host/offenders/demotion.ts';
import { buildRuntimeScript } from '../../../sandbox-api/runtime/build.ts';
import { bundleIntegration, envelope } from '../sandbox-api/harness.ts';
import { sandboxTestLimits } from './test-limits.ts';
import { runtimeModules } from '../../helpers/runtime-modules.ts';

const LIMITS = sandboxTestLimits({ dispatchTimeoutMs: 1_000 });

const isolates: IntegrationIsolate[] = [];
afterEach(() => {
  for (const isolate of isolates.splice(0)) isolate.dispose('test over');
});

async function isolateOf(handler: string, limits: Partial<SandboxLimits> = {}): Promise<IntegrationIsolate> {
  const hooks = {
    fetch: async () => ({ ok: false as const, code: 'TypeError', message: 'no fetch here' }),
    lateLog: () => undefined,
  };
  const source =
    `import { createIntegration } from 'sandbox-api';\nconst hoard = [];\nexport default createIntegration({ async ` +
    `fetch(request) { ${handler} } });`;
  const isolate = new IntegrationIsolate(
    'evidence-test',
    await bundleIntegration(source),
    { code: await buildRuntimeScript(), modules: await runtimeModules() },
    { ...LIMITS, ...limits },
    hooks,
  );
  isolates.push(isolate);
  return isolate;
}

function request(query = ''): WireEnvelope {
  const url = `https://evidence.test/${query}`;
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

/** Dispatches with the worker's hog sampler running beside it; resolves with the failure. */
async function failureOf(
  isolate: IntegrationIsolate,
  envelope: WireEnvelope,
): Promise<{ failure: string; executedMs: number }> {
  const sampler = setInterval(() => isolate.takeHogReport(LIMITS.hogCpuMs), 100);
  try {
    await isolate.dispatch(envelope);
    throw new Error('the dispatch succeeded');
  } catch (error) {
    return error as { failure: string; executedMs: number };
  } finally {
    clearInterval(sampler);
  }
}

describe('CPU evidence of a failed dispatch', () => {
  it("comes with a spinning guest's timeout", async () => {
    const isolate = await isolateOf(
      `if (new URL(request.url).pathname === '/warm') return new Response('ok'); for (;;) {}`,
    );
    await isolate.dispatch(request('warm'));
    const { failure, executedMs } = await failureOf(isolate, request());
    expect(failure).toBe('timeout');
    expect(executedMs).toBeGreaterThanOrEqual(CPU_EVIDENCE_MS);
  });

  it('does not come with the timeout of a guest that only awaits', async () => {
    const isolate = await isolateOf(
      `if (new URL(request.url).pathname === '/warm') return new Response('ok'); await new Promise(() => {});`,
    );
    await isolate.dispatch(request('warm'));
    const { failure, executedMs } = await failureOf(isolate, request());
    expect(failure).toBe('timeout');
    expect(executedMs).toBeLessThan(CPU_EVIDENCE_MS);
  });

  it("comes with an allocation storm's memory kill, from the sampler's last reading", async () => {
    // Work between allocations makes the storm last well over a second of CPU before the kill, so
    // the sampler's last reading (at most 100 ms of wall time old) is past the threshold on a fast
    // machine as on a busy one; a bare allocation loop can be killed within the first 100 ms.
    const isolate = await isolateOf(
      `for (;;) { let n = 0; for (let i = 0; i < 2_000_000; i++) n = (n + i) | 0; hoard.push(new ` +
        `Array(10_000).fill({ n })); }`,
      { dispatchTimeoutMs: 60_000 },
    );
    const { failure, executedMs } = await failureOf(isolate, request());
    expect(failure).toBe('memory');
    expect(executedMs).toBeGreaterThanOrEqual(CPU_EVIDENCE_MS);
  });
});

// The dispatch deadline is the guest's time: it starts once the host has built the isolate's realm
// (the runtime, its frozen built-ins), so a host slowed by a busy machine does not turn a
// well-behaved integration's first request into a 504; the integration's own top level and its
// handler still count. The host's slowness is simulated by a runtime script that spins first.
import { afterEach, describe, expect, it } from 'vitest';
import { IntegrationIsolate, type RuntimeSource, type WireEnvelope } from '../../../host/sandbox/isolate.ts';
import { buildRuntimeScript } from '../../../sandbox-api/runtime/build.ts';
import { bundleIntegration, envelope } from '../sandbox-api/harness.ts';
import { sandboxTestLimits } from './test-limits.ts';
import { runtimeModules } from '../../helpers/runtime-modules.ts';

const DEADLINE_MS = 1_000;
const HOST_START_MS = 2_500;

const LIMITS = sandboxTestLimits({ dispatchTimeoutMs: DEADLINE_MS });

/** The real runtime script, behind a host-side start that takes HOST_START_MS of wall-clock time. */
async function slowRuntime(): Promise<RuntimeSource> {
  return {
    modules: await runtimeModules(),
    code:
      `(function () { const until = Date.now() + ${HOST_START_MS}; while (Date.now() < until) {} ` +
      `return ${await buildRuntimeScript()}; })()`,
  };
}

const isolates: IntegrationIsolate[] = [];
afterEach(() => {
  for (const isolate of isolates.splice(0)) isolate.dispose('test over');
});

async function isolateOf(source: string): Promise<IntegrationIsolate> {
  const hooks = {
    fetch: async () => ({ ok: false as const, code: 'TypeError', message: 'no fetch here' }),
    lateLog: () => undefined,
  };
  const isolate = new IntegrationIsolate(
    'deadline-test',
    await bundleIntegration(source),
    await slowRuntime(),
    LIMITS,
    hooks,
  );
  isolates.push(isolate);
  return isolate;
}

/** A fetch event as the worker hands it to the isolate (JSON text, as the supervisor sends it). */
function request(): WireEnvelope {
  const { event, environment, fetchBody } = envelope({
    type: 'fetch',
    request: { method: 'GET', url: 'https://deadline.test/', headers: [] },
  });
  return {
    eventId: event.eventId,
    installationId: String(event.installationId ?? ''),
    eventJson: JSON.stringify(event),
    environmentJson: JSON.stringify(environment),
    fetchBody,
    requestUrl: 'https://deadline.test/',
  };
}

describe('the dispatch deadline', () => {
  it(
    'does not count the host building the realm: a cold request answers though the start took longer than the ' +
      'deadline',
    async () => {
      const isolate = await isolateOf(`
      import { createIntegration } from 'sandbox-api';
      export default createIntegration({ fetch: () => new Response('answered') });`);
      const started = performance.now();
      const { response } = await isolate.dispatch(request());
      expect(performance.now() - started).toBeGreaterThanOrEqual(HOST_START_MS);
      expect(response.status).toBe(200);
      expect(new TextDecoder().decode(response.body)).toBe('answered');
    },
  );

  it("counts the integration's own top level and handler", async () => {
    const isolate = await isolateOf(`
      import { createIntegration } from 'sandbox-api';
      const until = Date.now() + ${DEADLINE_MS / 2};
      while (Date.now() < until) {}
      export default createIntegration({ fetch: () => new Promise(() => undefined) });`);
    await expect(isolate.dispatch(request())).rejects.toMatchObject({
      failure: 'timeout',
      message: `the integration did not answer within ${DEADLINE_MS} ms`,
    });
  });
});

describe("a dispatch's own deadline", () => {
  it('times out at the deadline the host sent with it (what it left of its own), not the configured one', async () => {
    const hooks = {
      fetch: async () => ({ ok: false as const, code: 'TypeError', message: 'no fetch here' }),
      lateLog: () => undefined,
    };
    const source = `
      import { createIntegration } from 'sandbox-api';
      export default createIntegration({
        fetch: (request) =>
          new URL(request.url).pathname === '/hang' ? new Promise(() => undefined) : new Response('up') });`;
    // Configured far beyond the test's own timeout: only the dispatch's deadline can end it.
    const isolate = new IntegrationIsolate(
      'own-deadline',
      await bundleIntegration(source),
      { code: await buildRuntimeScript(), modules: await runtimeModules() },
      sandboxTestLimits({ dispatchTimeoutMs: 600_000 }),
      hooks,
    );
    isolates.push(isolate);
    expect((await isolate.dispatch(request())).response.status).toBe(200);
    const hang = request();
    const event = JSON.parse(hang.eventJson) as { request: { url: string } };
    event.request.url = 'https://deadline.test/hang';
    await expect(
      isolate.dispatch({ ...hang, eventJson: JSON.stringify(event), requestUrl: event.request.url, deadlineMs: 300 }),
    ).rejects.toMatchObject({ failure: 'timeout' });
  });
});

// The sandbox-api modules the runtime provides to every bundle (sandbox-api/runtime/provided.ts)
// cross into guest code: a hostile integration walks everything reachable from them for a bridge,
// an isolated-vm Reference or the runtime's own API, patches them and rebinds the name its stubs
// read, and asks provided code for its callers. It must find only sandbox-api's public exports,
// frozen; no patch may land, and createIntegration()'s dispatch must keep working after them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROVIDED_MODULES } from '../../sandbox-api/runtime/provided.ts';
import { endpointOf, startTestHost, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';

let host: TestHost;

beforeAll(async () => {
  host = await startTestHost({ dirs: ['fixtures/integrations', 'fixtures/hostile/provided-module-tampering'] });
}, 60_000);
afterAll(() => host?.close());

async function ask(step?: string): Promise<Response> {
  return fetch(`${endpointOf(host, 'provided-module-tampering')}${step ? `?step=${step}` : ''}`);
}

describe('the sandbox-api modules the runtime provides', () => {
  it(
    'reach only sandbox-api’s public exports, all frozen: no ' + 'bridge, no Reference, nothing of the runtime',
    async () => {
      const response = await ask();
      expect(response.status).toBe(200);
      const report = await response.json();
      expect(report.sameTable).toBe(true);
      expect(report.stubsReadTable).toBe(true);
      expect(report.specifiers).toEqual(['sandbox-api', 'sandbox-api/jsx-dev-runtime', 'sandbox-api/jsx-runtime']);
      expect(report.exports).toEqual(Object.keys(PROVIDED_MODULES['sandbox-api']).sort());
      expect(report.exports).toEqual([
        'ApiError',
        'ExposableError',
        'createApiClient',
        'createComponent',
        'createIntegration',
        'createOAuthHandler',
      ]);
      // The walk did reach the modules' functions, classes and prototypes (a walk of nothing proves nothing).
      expect(report.visited).toBeGreaterThan(20);
      expect(report.bridges).toEqual([]);
      expect(report.runtime).toEqual([]);
      expect(report.unfrozen).toEqual([]);
      expect(report.callers).toEqual([]);
      expect(report.element).toEqual({ type: 'block', children: [{ type: 'text', children: ['hi'] }] });
    },
  );

  it('refuse every patch, and createIntegration’s dispatch keeps working after the attempts', async () => {
    const patched = await ask('patch');
    expect(patched.status).toBe(200);
    expect((await patched.json()).landed).toEqual([]);
    // The same isolate, after the attempts: the brand still makes an ExposableError the caller's answer,
    // an unhandled error is still the runtime's 500, and the modules are as they were.
    const exposable = await ask('throw-exposable');
    expect(exposable.status).toBe(418);
    expect(await exposable.json()).toEqual({ error: 'told the caller' });
    const thrown = await ask('throw');
    expect(thrown.status).toBe(500);
    expect(await thrown.json()).toEqual({ error: 'Internal server error' });
    const after = await (await ask()).json();
    expect(after.unfrozen).toEqual([]);
    expect(after.exports).toEqual(Object.keys(PROVIDED_MODULES['sandbox-api']).sort());
  });

  it('leaves the host and its neighbour answering', async () => {
    await expectHostHealthy(host);
  });
});

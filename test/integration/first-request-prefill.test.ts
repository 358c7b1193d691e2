// A started host builds each installation's first-request environment in the background
// (host/assembly/first-requests.ts): every installation of a runnable integration is prepared, and
// a first request after that is answered as any other.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointOf, startTestHost, type TestHost } from '../helpers/host.ts';

let host: TestHost;

beforeAll(async () => {
  host = await startTestHost({ dirs: ['fixtures/integrations'] });
});
afterAll(() => host?.close());

describe('first requests prepared at start', () => {
  it('prepares every installation of a runnable integration, then answers their first requests', async () => {
    const runnable = new Set(
      host.integrations
        .filter((integration) => integration.status === 'ready' && integration.bundle !== undefined)
        .map((integration) => integration.name),
    );
    const installations = (await host.stores.installations.listInstallations()).filter((installation) =>
      runnable.has(installation.integration),
    );
    expect(installations.length).toBeGreaterThan(1);
    expect(await host.firstRequestsPrepared).toBe(installations.length);
    const answer = await fetch(endpointOf(host, 'hello'), { method: 'POST', body: '{}' });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ received: true });
  });
});

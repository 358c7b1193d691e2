// A manifest asking for the internal scopes (site:script:inject, site:script:cookies) from an
// organization that is not first-party: listed invalid with one error per internal scope, never
// installed or run, while the host and a neighbour keep answering.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestHost, endpointOf, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';

let host: TestHost;

beforeAll(async () => {
  host = await startTestHost({ dirs: ['fixtures/integrations', 'fixtures/hostile'] });
});
afterAll(() => host?.close());

describe('a manifest asking for an internal scope', () => {
  it('is listed invalid, naming each internal scope', async () => {
    const listed = await (await host.admin('/v1/integrations/internal-scope-request')).json();
    expect(listed.status).toBe('invalid');
    expect(listed.errors).toEqual([
      'fixtures/hostile/internal-scope-request/platform-manifest.yaml: /scopes/1: scope "site:script:inject" is ' +
        "internal and only granted to the platform's own integrations (--first-party or firstPartyIntegrations) " +
        'and first-party organizations',
      'fixtures/hostile/internal-scope-request/platform-manifest.yaml: /scopes/2: scope "site:script:cookies" is ' +
        "internal and only granted to the platform's own integrations (--first-party or firstPartyIntegrations) " +
        'and first-party organizations',
    ]);
  });

  it('is never installed or run', async () => {
    expect(() => endpointOf(host, 'internal-scope-request')).toThrow(/no dev installation/);
    const attempt = await host.admin('/v1/integrations/internal-scope-request/installations', {
      method: 'POST',
      body: JSON.stringify({ organization: 'acme', target: 'organization' }),
    });
    expect(attempt.status).toBe(409);
    expect((await attempt.json()).error.code).toBe('ERR_INTEGRATION_INVALID');
    expect(host.supervisor.workerOf('internal-scope-request')).toBeUndefined();
  });

  it('leaves the host and its neighbour answering', async () => {
    await expectHostHealthy(host);
  });
});

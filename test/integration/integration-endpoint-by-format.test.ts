// `context.environment.integration.urls.publicEndpoint` by manifest format, through the real host:
// for a platform-manifest.yaml integration it is the dispatched installation's public endpoint,
// as the specification says, for organization, space and site installations alike; for a
// gitbook-manifest.yaml integration it stays GitBook's, the integration's own endpoint. With no
// installation (the integration's own endpoint) both formats get the integration's endpoint.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHost, type TestHost } from '../helpers/host.ts';
import { install } from '../helpers/platform-api.ts';

let host: TestHost;

beforeAll(async () => {
  host = await startTestHost({ dirs: ['test/fixtures/endpoint-echo'], autoInstall: false });
}, 60_000);
afterAll(() => host?.close());

async function echo(url: string): Promise<{
  integration: { publicEndpoint: string; publicContentEndpoint: string; location: string };
  installation: string | null;
}> {
  const response = await fetch(url);
  expect(response.status, url).toBe(200);
  return response.json();
}

const targets = [
  ['an organization', { organization: 'acme', target: 'organization' }],
  ['a space', { organization: 'acme', target: 'space', space: 'space_acme_docs' }],
  ['a site', { organization: 'acme', target: 'site', site: 'site_acme' }],
] as const;

describe('integration.urls.publicEndpoint of a platform-manifest.yaml integration', () => {
  it.each(targets)("is the installation's public endpoint on %s installation", async (_, body) => {
    const installation = await install(host, 'seed-echo', body);
    const endpoint = installation.urls.publicEndpoint;
    expect(endpoint).toMatch(new RegExp(`/v1/integrations/seed-echo/installations/${installation.id}$`));
    const { integration, installation: own } = await echo(`${endpoint}/v1`);
    expect(integration.publicEndpoint).toBe(endpoint);
    expect(integration.publicContentEndpoint).toBe(endpoint);
    expect(own).toBe(endpoint);
    // The rest of the Integration object is unchanged.
    expect(integration.location).toBe(`${host.url}/v1/integrations/seed-echo`);
  });

  it("is the integration's own endpoint when the dispatch has no installation", async () => {
    const { integration, installation } = await echo(`${host.url}/v1/integrations/seed-echo/integration`);
    expect(integration.publicEndpoint).toBe(`${host.url}/v1/integrations/seed-echo/integration`);
    expect(installation).toBeNull();
  });
});

describe('integration.urls.publicEndpoint of a gitbook-manifest.yaml integration', () => {
  it.each(targets)("is the integration's own endpoint on %s installation, as on GitBook", async (_, body) => {
    const installation = await install(host, 'gitbook-echo', body);
    const { integration, installation: own } = await echo(installation.urls.publicEndpoint);
    expect(integration.publicEndpoint).toBe(`${host.url}/v1/integrations/gitbook-echo/integration`);
    expect(integration.publicContentEndpoint).toBe(`${host.url}/v1/integrations/gitbook-echo/integration`);
    expect(own).toBe(installation.urls.publicEndpoint);
  });

  it("is the integration's own endpoint when the dispatch has no installation", async () => {
    const { integration } = await echo(`${host.url}/v1/integrations/gitbook-echo/integration`);
    expect(integration.publicEndpoint).toBe(`${host.url}/v1/integrations/gitbook-echo/integration`);
  });
});

// The environment of every kind of dispatch, as a module worker receives it on the wire, validated
// with the test's own ajv against GitBook's `IntegrationEnvironment`: an organization installation,
// a space and a site installation under it (installation + spaceInstallation / siteInstallation),
// and the integration's own endpoint (no installation, the integration token only). Also the
// integration's assets route, and environments of two integrations kept apart on one worker.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, symlinkSync, rmSync } from 'node:fs';
import { endpointOf, installationOf, startTestHost, type TestHost } from '../helpers/host.ts';
import { install, installationToken } from '../helpers/platform-api.ts';
import { expectValidAgainstSpec } from '../helpers/gitbook-spec.ts';

let host: TestHost;
const LINK = 'test/fixtures/gitbook-probe/wire-echo/assets/outside.ts';

beforeAll(async () => {
  // One worker: both probes share it, so a cached environment could only leak there.
  host = await startTestHost({ dirs: ['test/fixtures/gitbook-probe'], workers: 1 });
  rmSync(LINK, { force: true });
  symlinkSync('../index.ts', LINK);
});
afterAll(async () => {
  rmSync(LINK, { force: true });
  await host?.close();
});

async function echo(url: string): Promise<{ event: any; environment: any }> {
  const response = await fetch(url);
  expect(response.status, url).toBe(200);
  return response.json();
}

describe('the environment of a dispatch', () => {
  it("to an organization installation: GitBook's installation, both tokens, valid against the spec", async () => {
    const id = installationOf(host, 'wire-echo');
    const { environment } = await echo(endpointOf(host, 'wire-echo'));
    expectValidAgainstSpec('IntegrationEnvironment', environment);
    expect(environment.installation).toMatchObject({
      id,
      status: 'active',
      space_selection: 'all',
      site_selection: 'all',
      spaces: 2,
      target: { organization: 'acme' },
      configuration: {},
    });
    expect(environment.installation.urls.publicEndpoint).toBe(endpointOf(host, 'wire-echo'));
    expect(environment.spaceInstallation).toBeUndefined();
    expect(environment.apiTokens).toEqual({
      installation: await installationToken(host, id),
      integration: expect.stringMatching(/^ihi_/),
    });
    expect(environment.integration).toMatchObject({
      name: 'wire-echo',
      title: 'Wire echo',
      scopes: expect.arrayContaining(['space:content:read']),
      owner: { object: 'organization', id: 'acme', title: 'Acme Inc.' },
      urls: {
        publicEndpoint: `${host.url}/v1/integrations/wire-echo/integration`,
        publicContentEndpoint: `${host.url}/v1/integrations/wire-echo/integration`,
        icon: `${host.url}/v1/integrations/wire-echo/assets/icon.png`,
        assets: `${host.url}/v1/integrations/wire-echo/assets`,
      },
      previewImages: [`${host.url}/v1/integrations/wire-echo/assets/icon.png`],
    });
    expect(environment.signingSecrets).toEqual({
      integration: expect.stringMatching(/^[0-9a-f]{64}$/),
      installation: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(environment.secrets).toEqual({ LITERAL: 'wire-echo-literal' });
    // This host's own view of the dispatched installation, at the top level.
    expect(environment).toMatchObject({
      id,
      target: 'organization',
      organization: 'acme',
      space_selection: { mode: 'all' },
    });
  });

  it(
    'to a space installation: its organization installation and the space installation, each with its own ' +
      'configuration',
    async () => {
      const space = await install(host, 'wire-echo', {
        organization: 'acme',
        target: 'space',
        space: 'space_acme_docs',
      });
      const parent = installationOf(host, 'wire-echo');
      expect(space.parent).toBe(parent);
      await host.admin(`/v1/installations/${parent}/configuration`, {
        method: 'PATCH',
        body: JSON.stringify({ workspace: 'ws-1' }),
      });
      await host.admin(`/v1/installations/${space.id}/configuration`, {
        method: 'PATCH',
        body: JSON.stringify({ channel: 'general' }),
      });
      const { event, environment } = await echo(space.urls.publicEndpoint);
      expectValidAgainstSpec('IntegrationEnvironment', environment);
      expect(environment.installation).toMatchObject({ id: parent, configuration: { workspace: 'ws-1' } });
      expect(environment.spaceInstallation).toEqual({
        integration: 'wire-echo',
        installation: parent,
        space: 'space_acme_docs',
        status: 'active',
        configuration: { channel: 'general' },
        externalIds: [],
        urls: {
          location: `${endpointOf(host, 'wire-echo')}/spaces/space_acme_docs`,
          publicEndpoint: space.urls.publicEndpoint,
          publicContentEndpoint: space.urls.publicEndpoint,
        },
      });
      expect(environment.siteInstallation).toBeUndefined();
      // The token is the space installation's own; the signing secrets name each level.
      expect(environment.apiTokens.installation).toBe(await installationToken(host, space.id));
      expect(Object.keys(environment.signingSecrets).sort()).toEqual([
        'installation',
        'integration',
        'spaceInstallation',
      ]);
      expect(environment).toMatchObject({
        id: space.id,
        target: 'space',
        space: 'space_acme_docs',
        parent,
        configuration: { channel: 'general' },
      });
      expect(event).toMatchObject({ type: 'fetch', installationId: space.id });
      expectValidAgainstSpec('FetchEvent', event);
      expectValidAgainstSpec('Event', event);
    },
  );

  it('to a site installation: siteInstallation with its own configuration', async () => {
    const site = await install(host, 'wire-echo', { organization: 'acme', target: 'site', site: 'site_acme' });
    await host.admin(`/v1/installations/${site.id}/configuration`, {
      method: 'PATCH',
      body: JSON.stringify({ tracking_id: 'G-1' }),
    });
    const { environment } = await echo(site.urls.publicEndpoint);
    expectValidAgainstSpec('IntegrationEnvironment', environment);
    expect(environment.siteInstallation).toMatchObject({
      installation: installationOf(host, 'wire-echo'),
      site: 'site_acme',
      configuration: { tracking_id: 'G-1' },
    });
    expect(environment.spaceInstallation).toBeUndefined();
  });

  it('to the integration itself: no installation, the integration token only', async () => {
    const { event, environment } = await echo(`${host.url}/v1/integrations/wire-echo/integration/oauth?from=provider`);
    expectValidAgainstSpec('IntegrationEnvironment', environment);
    expect(environment.installation).toBeUndefined();
    expect(environment.apiTokens).toEqual({ integration: expect.stringMatching(/^ihi_/) });
    expect(environment.id).toBeUndefined();
    expect(event).toMatchObject({
      type: 'fetch',
      request: { method: 'get', url: `${host.url}/v1/integrations/wire-echo/integration/oauth?from=provider` },
    });
    expectValidAgainstSpec('FetchEvent', event);
    expect(event.installationId).toBeUndefined();
  });

  it("never gives one integration the other's environment on a shared worker", async () => {
    for (const name of ['wire-echo', 'wire-echo-two', 'wire-echo', 'wire-echo-two']) {
      const { environment } = await echo(`${host.url}/v1/integrations/${name}/integration`);
      expect(environment.integration.name).toBe(name);
    }
  });

  it("answers an unknown integration's endpoint with 404", async () => {
    const response = await fetch(`${host.url}/v1/integrations/nobody/integration`);
    expect(response.status).toBe(404);
    expect((await response.json()).error.code).toBe('ERR_INTEGRATION_NOT_FOUND');
  });
});

describe('GET /v1/integrations/:name/assets/*', () => {
  it('serves a file of the assets folder with its type', async () => {
    const response = await fetch(`${host.url}/v1/integrations/wire-echo/assets/icon.png`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(
      Buffer.from(await response.arrayBuffer()).equals(
        readFileSync('test/fixtures/gitbook-probe/wire-echo/assets/icon.png'),
      ),
    ).toBe(true);
  });

  it('serves nothing outside it: no climbing out, no symlink out, no unknown file', async () => {
    for (const path of ['../index.ts', '..%2Findex.ts', '%2e%2e/index.ts', 'outside.ts', 'missing.png', '']) {
      const response = await fetch(`${host.url}/v1/integrations/wire-echo/assets/${path}`);
      expect(response.status, path).toBe(404);
      expect(await response.text()).not.toContain('export default');
    }
  });
});

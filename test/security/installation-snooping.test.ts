// A guest looking for what belongs to others: two installations of the same integration each get
// only their own configuration in their envelope, no other integration's secret is ever in it, and
// through the platform API the guest reaches neither admin routes, nor another installation's
// record or configuration, nor a configuration write with a token that is not its integration's.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestHost, installationOf, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';
import { install, installationToken } from '../helpers/platform-api.ts';
import { withDevDefaults } from '../../host/config/dev-env.ts';

let host: TestHost;
let alpha: { id: string; endpoint: string };
let beta: { id: string; endpoint: string };
const OAUTH_SECRET = withDevDefaults({}).env.OAUTH_DEMO_CLIENT_SECRET!;

async function configure(id: string, label: string): Promise<void> {
  const response = await host.admin(`/v1/installations/${id}/configuration`, {
    method: 'PATCH',
    body: JSON.stringify({ label }),
  });
  expect(response.status).toBe(200);
}

async function snoop(endpoint: string, other: string, foreignToken: string): Promise<any> {
  // A form body: a host token in the URL would be refused before the integration runs.
  const response = await fetch(endpoint, { method: 'POST', body: new URLSearchParams({ other, foreignToken }) });
  expect(response.status).toBe(200);
  return response.json();
}

beforeAll(async () => {
  host = await startTestHost({
    dirs: ['fixtures/integrations', 'fixtures/hostile'],
    env: withDevDefaults(process.env).env,
  });
  for (const [space, label, set] of [
    ['space_acme_docs', 'alpha-only-label', (v: typeof alpha) => (alpha = v)],
    ['space_acme_internal', 'beta-only-label', (v: typeof beta) => (beta = v)],
  ] as const) {
    const installation = await install(host, 'installation-snooping', { organization: 'acme', target: 'space', space });
    await configure(installation.id, label);
    set({ id: installation.id, endpoint: installation.urls.publicEndpoint });
  }
});
afterAll(() => host?.close());

describe('installation snooping', () => {
  it('gives each installation of one integration only its own configuration', async () => {
    const seenByAlpha = await snoop(alpha.endpoint, beta.id, '');
    const seenByBeta = await snoop(beta.endpoint, alpha.id, '');
    expect(seenByAlpha).toMatchObject({ installation: alpha.id, configuration: { label: 'alpha-only-label' } });
    expect(seenByBeta).toMatchObject({ installation: beta.id, configuration: { label: 'beta-only-label' } });
    expect(seenByAlpha.environment).not.toContain('beta-only-label');
    expect(seenByAlpha.environment).not.toContain(beta.id);
    expect(seenByBeta.environment).not.toContain('alpha-only-label');
  });

  it("puts no other integration's secret in the envelope", async () => {
    const seen = await snoop(alpha.endpoint, beta.id, '');
    expect(seen.secrets).toEqual({ API_KEY: 'snooping-own-literal-secret' });
    expect(seen.environment).not.toContain(OAUTH_SECRET);
    expect(seen.environment).not.toContain(await installationToken(host, installationOf(host, 'oauth-demo')));
  });

  it("reaches neither admin routes nor another installation's record or configuration through the API", async () => {
    const { api } = await snoop(alpha.endpoint, beta.id, '');
    for (const name of ['otherInstallation', 'otherConfiguration', 'integrations', 'events'] as const) {
      expect(api[name].status, name).toBe(404);
      expect(api[name].body).not.toMatch(/beta-only-label|oauth-demo-dev/);
    }
  });

  it("cannot write another installation's configuration with that installation's stolen token", async () => {
    const stolen = await installationToken(host, installationOf(host, 'hello'));
    const { api } = await snoop(alpha.endpoint, beta.id, stolen);
    expect(api.patchWithForeignToken.status).toBe(401);
    expect(JSON.parse(api.patchWithForeignToken.body).error.code).toBe('ERR_UNAUTHORIZED');
    expect((await host.stores.installations.getInstallation(installationOf(host, 'hello')))!.configuration).toEqual({});
    expect((await host.stores.installations.getInstallation(beta.id))!.configuration).toEqual({
      label: 'beta-only-label',
    });
  });

  it('leaves the host and its neighbour answering', async () => {
    await expectHostHealthy(host);
  });
});

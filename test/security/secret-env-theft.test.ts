// A manifest naming other parties' environment variables as its own secrets (the host's admin
// token, another integration's client secret, a cloud key): each is outside the integration's
// namespace (SECRET_ENV_THEFT_…), so the integration is listed invalid, is never installed or run,
// and no value appears in its errors, the listing or the host log.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestHost, endpointOf, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';
import { withDevDefaults } from '../../host/config/dev-env.ts';

const VALUES = {
  HOST_ADMIN_TOKEN: 'host-admin-token-value-0123456789',
  OAUTH_DEMO_CLIENT_SECRET: 'oauth-demo-secret-value',
  AWS_SECRET_ACCESS_KEY: 'cloud-key-value',
};
let host: TestHost;

beforeAll(async () => {
  host = await startTestHost({
    dirs: ['fixtures/integrations', 'fixtures/hostile'],
    env: { ...withDevDefaults(process.env).env, ...VALUES },
  });
});
afterAll(() => host?.close());

describe('secret theft through the manifest', () => {
  it('lists the integration invalid with one error per foreign variable', async () => {
    const listed = await (await host.admin('/v1/integrations/secret-env-theft')).json();
    expect(listed.status).toBe('invalid');
    const errors = (listed.errors as string[]).join('\n');
    expect(listed.errors).toHaveLength(3);
    expect(errors).toMatch(
      new RegExp(
        `/secrets/ADMIN: secret "ADMIN" cannot read HOST_ADMIN_TOKEN: ` +
          "HOST_ADMIN_TOKEN is one of the host's own variables",
      ),
    );
    expect(errors).toMatch(
      new RegExp(
        '/secrets/OAUTH: secret "OAUTH" cannot read OAUTH_DEMO_CLIENT_SECRET: ' +
          'an integration named "secret-env-theft" may only read variables named SECRET_ENV_THEFT_…',
      ),
    );
    expect(errors).toMatch(/\/secrets\/CLOUD: secret "CLOUD" cannot read AWS_SECRET_ACCESS_KEY/);
  });

  it('never installs or runs it', async () => {
    expect(() => endpointOf(host, 'secret-env-theft')).toThrow(/no dev installation/);
    const attempt = await host.admin('/v1/integrations/secret-env-theft/installations', {
      method: 'POST',
      body: JSON.stringify({ organization: 'acme', target: 'organization' }),
    });
    expect(attempt.status).toBe(409);
    expect((await attempt.json()).error.code).toBe('ERR_INTEGRATION_INVALID');
  });

  it('shows no value anywhere: listing, errors, host log', async () => {
    const everything = JSON.stringify(await (await host.admin('/v1/integrations')).json()) + host.logs.join('\n');
    for (const value of Object.values(VALUES)) expect(everything).not.toContain(value);
  });

  it('leaves the owner of the variable working with its own secret', async () => {
    expect((await (await host.admin('/v1/integrations/oauth-demo')).json()).status).toBe('ready');
  });

  it('leaves the host and its neighbour answering', async () => {
    await expectHostHealthy(host);
  });
});

// Integrations named so that their own secrets namespace is the host's reserved HOST_… prefix:
// `host-admin` (namespace HOST_ADMIN_…, which holds HOST_ADMIN_TOKEN) and `host` (namespace HOST_…,
// every host variable). The HOST_ rule holds whatever the name: both are listed invalid, never
// installed or run, and no value appears in their errors, the listing or the host log.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestHost, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';
import { withDevDefaults } from '../../host/config/dev-env.ts';

const VALUES = {
  HOST_ADMIN_TOKEN: 'host-admin-token-value-0123456789',
  HOST_DATABASE_URL: 'postgres://host-database-secret',
};
let host: TestHost;

beforeAll(async () => {
  host = await startTestHost({
    dirs: ['fixtures/integrations', 'fixtures/hostile'],
    env: { ...withDevDefaults(process.env).env, ...VALUES },
  });
});
afterAll(() => host?.close());

async function listed(name: string): Promise<{ status: string; errors: string[] }> {
  const response = await host.admin(`/v1/integrations/${name}`);
  expect(response.status).toBe(200);
  return response.json();
}

describe("names colliding with the host's reserved prefix", () => {
  it('"host-admin" may not read HOST_ADMIN_TOKEN, although it looks like its own HOST_ADMIN_… namespace', async () => {
    const { status, errors } = await listed('host-admin');
    expect(status).toBe('invalid');
    expect(errors).toEqual([
      expect.stringMatching(
        new RegExp(
          `/secrets/TOKEN: secret "TOKEN" cannot read HOST_ADMIN_TOKEN: HOST_ADMIN_TOKEN is one of the host's own ` +
            'variables; store it for this integration instead: npm run secrets -- set host-admin HOST_ADMIN_TOKEN ' +
            String.raw`\(the value is read from stdin\)$`,
        ),
      ),
    ]);
  });

  it('"host" may read no HOST_… variable, although HOST_… looks like its whole namespace', async () => {
    const { status, errors } = await listed('host');
    expect(status).toBe('invalid');
    expect(errors).toHaveLength(2);
    expect(errors.join('\n')).toMatch(
      new RegExp(
        `/secrets/ADMIN: secret "ADMIN" cannot read HOST_ADMIN_TOKEN: ` +
          "HOST_ADMIN_TOKEN is one of the host's own variables",
      ),
    );
    expect(errors.join('\n')).toMatch(
      new RegExp(
        `/secrets/OTHER: secret "OTHER" cannot read HOST_DATABASE_URL: ` +
          "HOST_DATABASE_URL is one of the host's own variables",
      ),
    );
  });

  it('never installs or runs either', async () => {
    expect(
      host.devInstallations
        .filter((dev) => dev.integration === 'host' || dev.integration === 'host-admin')
        .every((dev) => !dev.installation),
    ).toBe(true);
    for (const name of ['host', 'host-admin']) {
      const attempt = await host.admin(`/v1/integrations/${name}/installations`, {
        method: 'POST',
        body: JSON.stringify({ organization: 'acme', target: 'organization' }),
      });
      expect(attempt.status).toBe(409);
      expect((await attempt.json()).error.code).toBe('ERR_INTEGRATION_INVALID');
    }
  });

  it('shows no value anywhere: listing, errors, host log', async () => {
    const everything = JSON.stringify(await (await host.admin('/v1/integrations')).json()) + host.logs.join('\n');
    for (const value of Object.values(VALUES)) expect(everything).not.toContain(value);
  });

  it('leaves the host and its neighbour answering', async () => {
    await expectHostHealthy(host);
  });
});

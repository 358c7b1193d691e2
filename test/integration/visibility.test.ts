// Who may install what (docs/manifest.md visibility): private → only the manifest's organization;
// unlisted → other organizations need the install link GET /v1/integrations/:name shows;
// public → anyone. Refusals are 403 ERR_VISIBILITY_DENIED.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestHost, type TestHost } from '../helpers/host.ts';
import { install } from '../helpers/lifecycle.ts';
import { withDevDefaults } from '../../host/config/dev-env.ts';

let host: TestHost;

beforeAll(async () => {
  host = await startTestHost({
    dirs: ['fixtures/integrations', 'test/fixtures/lifecycle'],
    autoInstall: false,
    env: { ...withDevDefaults(process.env).env, SETTINGS_DEMO_API_KEY: 'x' },
  });
});
afterAll(() => host?.close());

async function describeIntegration(name: string): Promise<any> {
  const response = await host.admin(`/v1/integrations/${name}`);
  expect(response.status).toBe(200);
  return response.json();
}

describe('private integrations', () => {
  it('install in their own organization', async () => {
    expect((await install(host, 'private-notes', { organization: 'acme', target: 'organization' })).status).toBe(201);
  });

  it('are refused to another organization with 403 ERR_VISIBILITY_DENIED, even with an install link', async () => {
    const link = (await describeIntegration('unlisted-widget')).installLink;
    for (const body of [
      { organization: 'globex', target: 'organization' },
      { organization: 'globex', target: 'organization', installLink: link },
    ]) {
      const refused = await install(host, 'private-notes', body);
      expect(refused.status).toBe(403);
      expect(refused.json.error.code).toBe('ERR_VISIBILITY_DENIED');
    }
  });

  it('show no install link', async () => {
    expect(await describeIntegration('private-notes')).not.toHaveProperty('installLink');
  });
});

describe('unlisted integrations', () => {
  it('show their install link in GET /v1/integrations/:name (and only there)', async () => {
    const detail = await describeIntegration('unlisted-widget');
    expect(detail.installLink).toMatch(/^[\w-]{32}$/);
    const list = await (await host.admin('/v1/integrations')).json();
    expect(JSON.stringify(list)).not.toContain(detail.installLink);
  });

  it('refuse another organization without the link, or with a wrong one', async () => {
    for (const installLink of [undefined, 'x'.repeat(32)]) {
      const refused = await install(host, 'unlisted-widget', {
        organization: 'globex',
        target: 'organization',
        ...(installLink ? { installLink } : {}),
      });
      expect(refused.status).toBe(403);
      expect(refused.json.error.code).toBe('ERR_VISIBILITY_DENIED');
    }
  });

  it('install in another organization with the link, and in their own without it', async () => {
    const { installLink } = await describeIntegration('unlisted-widget');
    expect(
      (
        await install(host, 'unlisted-widget', {
          organization: 'globex',
          target: 'space',
          space: 'space_globex_docs',
          installLink,
        })
      ).status,
    ).toBe(201);
    expect((await install(host, 'unlisted-widget', { organization: 'acme', target: 'organization' })).status).toBe(201);
  });
});

describe('public integrations', () => {
  it('show no install link', async () => {
    expect(await describeIntegration('hello')).not.toHaveProperty('installLink');
  });

  it('install in any organization', async () => {
    expect((await install(host, 'hello', { organization: 'globex', target: 'organization' })).status).toBe(201);
    expect((await install(host, 'hello', { organization: 'acme', target: 'site', site: 'site_acme' })).status).toBe(
      201,
    );
  });
});

describe('GET /v1/integrations/:name', () => {
  it('shows the blocks for the quick-insert menu', async () => {
    expect((await describeIntegration('counter')).blocks).toEqual([
      { id: 'counter', title: 'Counter', description: 'Counts button presses.' },
    ]);
  });

  it('never shows secret values', async () => {
    const detail = JSON.stringify(await describeIntegration('oauth-demo'));
    expect(detail).toContain('oauth_credentials');
    expect(detail).not.toContain(withDevDefaults({}).env.OAUTH_DEMO_CLIENT_SECRET!);
  });
});

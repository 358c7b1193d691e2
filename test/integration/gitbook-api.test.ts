// GitBook's installation, organization and site routes over HTTP, at GitBook's paths, every answer
// validated with the test's own ajv against GitBook's spec: what each token reaches (an
// installation token its own tree, never a sibling or another tree; the integration token its own
// integration's installations and no content), updates storing what they say, and the routing
// rule that sends requests bearing a host API token to the API rather than the public endpoint.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointOf, installationOf, startTestHost, type TestHost } from '../helpers/host.ts';
import { callApi, install, installationToken, integrationToken } from '../helpers/platform-api.ts';
import { expectValidAgainstSpec } from '../helpers/gitbook-spec.ts';

let host: TestHost;
/** The dev organization installation of wire-echo in acme, its space and site installations, and one in globex. */
const ids = { parent: '', space: '', sibling: '', site: '', globex: '', globexSpace: '' };
const tokens = { parent: '', space: '', sibling: '', site: '', globex: '', integration: '', otherIntegration: '' };
const base = '/v1/integrations/wire-echo/installations';

beforeAll(async () => {
  host = await startTestHost({ dirs: ['test/fixtures/gitbook-probe'] });
  ids.parent = installationOf(host, 'wire-echo');
  ids.space = (
    await install(host, 'wire-echo', { organization: 'acme', target: 'space', space: 'space_acme_docs' })
  ).id;
  ids.sibling = (
    await install(host, 'wire-echo', { organization: 'acme', target: 'space', space: 'space_acme_internal' })
  ).id;
  ids.site = (await install(host, 'wire-echo', { organization: 'acme', target: 'site', site: 'site_acme' })).id;
  const globexSpace = await install(host, 'wire-echo', {
    organization: 'globex',
    target: 'space',
    space: 'space_globex_docs',
  });
  ids.globexSpace = globexSpace.id;
  ids.globex = globexSpace.parent!;
  for (const key of ['parent', 'space', 'sibling', 'site', 'globex'] as const)
    tokens[key] = await installationToken(host, ids[key]);
  tokens.integration = await integrationToken(host, 'wire-echo');
  tokens.otherIntegration = await integrationToken(host, 'wire-echo-two');
});
afterAll(() => host?.close());

const get = (token: string, path: string) => callApi(host, token, 'GET', path);
const patch = (token: string, path: string, body: unknown) => callApi(host, token, 'PATCH', path, body);

describe('installing into a space or site makes the organization installation if needed', () => {
  it(
    "puts acme's under the existing organization installation " + 'and creates one in globex, selecting the space',
    async () => {
      const space = await host.admin(`/v1/installations/${ids.space}`).then((response) => response.json());
      expect(space).toMatchObject({ target: 'space', space: 'space_acme_docs', parent: ids.parent });
      const globex = await host.admin(`/v1/installations/${ids.globex}`).then((response) => response.json());
      expect(globex).toMatchObject({
        integration: 'wire-echo',
        organization: 'globex',
        target: 'organization',
        space_selection: ['space_globex_docs'],
      });
    },
  );
});

describe('GET and PATCH /v1/integrations/:name/installations/:id', () => {
  it(
    "answers GitBook's IntegrationInstallation to the installation itself, one of its children and the integration " +
      'token',
    async () => {
      for (const token of [tokens.parent, tokens.space, tokens.site, tokens.integration]) {
        const { status, body } = await get(token, `${base}/${ids.parent}`);
        expect(status).toBe(200);
        expectValidAgainstSpec('IntegrationInstallation', body);
        expect(body).toMatchObject({ id: ids.parent, target: { organization: 'acme' }, space_selection: 'all' });
      }
    },
  );

  it("is 404 to another organization's installation tree and to another integration", async () => {
    expect((await get(tokens.globex, `${base}/${ids.parent}`)).status).toBe(404);
    expect((await get(tokens.space, `${base}/${ids.globex}`)).status).toBe(404);
    expect((await get(tokens.otherIntegration, `${base}/${ids.parent}`)).status).toBe(404);
    expect(
      (await get(tokens.otherIntegration, `/v1/integrations/wire-echo-two/installations/${ids.parent}`)).status,
    ).toBe(404);
  });

  it('replaces the configuration and sets external ids for a caller that reaches it', async () => {
    const { status, body } = await patch(tokens.space, `${base}/${ids.parent}`, {
      configuration: { workspace: 'from-space' },
      externalIds: ['ext-1'],
    });
    expect(status).toBe(200);
    expectValidAgainstSpec('IntegrationInstallation', body);
    expect(body).toMatchObject({ configuration: { workspace: 'from-space' }, externalIds: ['ext-1'] });
    expect(await host.stores.installations.getInstallation(ids.parent)).toMatchObject({
      configuration: { workspace: 'from-space' },
      externalIds: ['ext-1'],
    });
  });

  it('keeps keys the manifest does not declare beside validated properties, as GitBook does', async () => {
    const { status, body } = await patch(tokens.parent, `${base}/${ids.parent}`, {
      configuration: { workspace: 'from-space', sites: [{ id: 'cloud-1' }] },
    });
    expect(status).toBe(200);
    expect(body.configuration).toEqual({ workspace: 'from-space', sites: [{ id: 'cloud-1' }] });
    // The admin's PATCH still refuses them.
    const admin = await host.admin(`/v1/installations/${ids.parent}/configuration`, {
      method: 'PATCH',
      body: JSON.stringify({ sites: [] }),
    });
    expect(admin.status).toBe(422);
    await patch(tokens.parent, `${base}/${ids.parent}`, { configuration: { workspace: 'from-space' } });
  });

  it("refuses another tree's token, a selection change and an invalid configuration, storing nothing", async () => {
    expect(
      (await patch(tokens.globex, `${base}/${ids.parent}`, { configuration: { workspace: 'stolen' } })).status,
    ).toBe(404);
    const selection = await patch(tokens.parent, `${base}/${ids.parent}`, { space_selection: 'all' });
    expect(selection.status).toBe(400);
    expect(selection.body.error.details[0]).toMatchObject({ pointer: '/space_selection' });
    const invalid = await patch(tokens.parent, `${base}/${ids.parent}`, { configuration: { workspace: 7 } });
    expect([invalid.status, invalid.body.error.code]).toEqual([422, 'ERR_CONFIGURATION_INVALID']);
    const tooMany = await patch(tokens.parent, `${base}/${ids.parent}`, {
      externalIds: ['1', '2', '3', '4', '5', '6'],
    });
    expect(tooMany.status).toBe(400);
    expect((await host.stores.installations.getInstallation(ids.parent))?.configuration).toEqual({
      workspace: 'from-space',
    });
  });
});

describe('space and site installations', () => {
  const spacePath = () => `${base}/${ids.parent}/spaces/space_acme_docs`;

  it(
    "answers GitBook's IntegrationSpaceInstallation to itself, its organization installation and the integration " +
      'token',
    async () => {
      for (const token of [tokens.space, tokens.parent, tokens.integration]) {
        const { status, body } = await get(token, spacePath());
        expect(status).toBe(200);
        expectValidAgainstSpec('IntegrationSpaceInstallation', body);
        expect(body).toMatchObject({ integration: 'wire-echo', installation: ids.parent, space: 'space_acme_docs' });
      }
    },
  );

  it('is 404 to a sibling, to another tree and for a space it is not installed on', async () => {
    expect((await get(tokens.sibling, spacePath())).status).toBe(404);
    expect((await get(tokens.site, spacePath())).status).toBe(404);
    expect((await get(tokens.globex, spacePath())).status).toBe(404);
    expect((await get(tokens.parent, `${base}/${ids.parent}/spaces/space_globex_docs`)).status).toBe(404);
    expect((await patch(tokens.sibling, spacePath(), { configuration: { channel: 'stolen' } })).status).toBe(404);
    expect((await host.stores.installations.getInstallation(ids.space))?.configuration).toEqual({});
  });

  it('updates its own configuration (replacing it) and external ids', async () => {
    await patch(tokens.space, spacePath(), { configuration: { channel: 'first' } });
    const { status, body } = await patch(tokens.space, spacePath(), {
      configuration: { channel: 'general' },
      externalIds: ['repo-9'],
    });
    expect(status).toBe(200);
    expectValidAgainstSpec('IntegrationSpaceInstallation', body);
    expect(body).toMatchObject({ configuration: { channel: 'general' }, externalIds: ['repo-9'], status: 'active' });
    expect(await host.stores.installations.getInstallation(ids.space)).toMatchObject({
      configuration: { channel: 'general' },
      externalIds: ['repo-9'],
    });
  });

  it('answers a site installation as IntegrationSiteInstallation', async () => {
    const { status, body } = await patch(tokens.site, `${base}/${ids.parent}/sites/site_acme`, {
      configuration: { tracking_id: 'G-7' },
    });
    expect(status).toBe(200);
    expectValidAgainstSpec('IntegrationSiteInstallation', body);
    expect(body).toMatchObject({ site: 'site_acme', configuration: { tracking_id: 'G-7' } });
  });
});

describe('lists', () => {
  const ofItems = (body: { items: { id?: string; space?: string; site?: string }[] }) =>
    body.items.map((item) => item.id ?? item.space ?? item.site);

  it(
    'lists the organization installations: all of them to the ' + 'integration token, its own to an installation',
    async () => {
      const all = await get(tokens.integration, base);
      expect(all.status).toBe(200);
      for (const item of all.body.items) expectValidAgainstSpec('IntegrationInstallation', item);
      expect(ofItems(all.body).sort()).toEqual([ids.parent, ids.globex].sort());
      expect(all.body.count).toBe(2);
      expect(ofItems((await get(tokens.space, base)).body)).toEqual([ids.parent]);
      expect(ofItems((await get(tokens.integration, `${base}?externalId=ext-1`)).body)).toEqual([ids.parent]);
      const paged = await get(tokens.integration, `${base}?limit=1`);
      expect(paged.body).toMatchObject({ count: 2, next: { page: '1' } });
      expect((await get(tokens.integration, `${base}?limit=1&page=1`)).body.next).toBeUndefined();
    },
  );

  it('lists the space installations under one organization installation that the caller reaches', async () => {
    const all = await get(tokens.parent, `${base}/${ids.parent}/spaces`);
    for (const item of all.body.items) expectValidAgainstSpec('IntegrationSpaceInstallation', item);
    expect(ofItems(all.body).sort()).toEqual(['space_acme_docs', 'space_acme_internal']);
    expect(ofItems((await get(tokens.space, `${base}/${ids.parent}/spaces`)).body)).toEqual(['space_acme_docs']);
    expect(ofItems((await get(tokens.parent, `${base}/${ids.parent}/sites`)).body)).toEqual(['site_acme']);
  });

  it('lists every space installation of the integration to the integration token', async () => {
    const all = await get(tokens.integration, '/v1/integrations/wire-echo/spaces');
    expect(ofItems(all.body).sort()).toEqual(['space_acme_docs', 'space_acme_internal', 'space_globex_docs']);
    expect(
      ofItems((await get(tokens.integration, '/v1/integrations/wire-echo/spaces?externalId=repo-9')).body),
    ).toEqual(['space_acme_docs']);
    expect((await get(tokens.integration, '/v1/integrations/wire-echo-two/spaces')).status).toBe(404);
  });
});

describe('installation tokens and the integration token', () => {
  it("hands the integration token an installation's own token, and refuses installation tokens", async () => {
    const created = await callApi(host, tokens.integration, 'POST', `${base}/${ids.parent}/tokens`);
    expect(created.status).toBe(200);
    expectValidAgainstSpec('APITemporaryToken', created.body);
    expect(created.body.token).toBe(tokens.parent);
    const refused = await callApi(host, tokens.parent, 'POST', `${base}/${ids.parent}/tokens`);
    expect([refused.status, refused.body.error.code]).toEqual([403, 'ERR_FORBIDDEN']);
  });

  it('gives the integration token no space or site, and no installation route of its own', async () => {
    expect((await get(tokens.integration, '/v1/spaces/space_acme_docs')).status).toBe(404);
    expect((await get(tokens.integration, '/v1/orgs/acme/sites/site_acme')).status).toBe(404);
    const own = await callApi(host, tokens.integration, 'PATCH', '/v1/installation/configuration', {});
    expect([own.status, own.body.error.code]).toEqual([403, 'ERR_FORBIDDEN']);
  });
});

describe('organizations and sites', () => {
  it("answers the caller's organization and 404 for another", async () => {
    const { status, body } = await get(tokens.parent, '/v1/orgs/acme');
    expect(status).toBe(200);
    expectValidAgainstSpec('Organization', body);
    expect(body).toMatchObject({ id: 'acme', title: 'Acme Inc.' });
    expect((await get(tokens.parent, '/v1/orgs/globex')).status).toBe(404);
  });

  it(
    "answers a covered site of its organization as GitBook's " + "Site, and 404 for another organization's path",
    async () => {
      const { status, body } = await get(tokens.site, '/v1/orgs/acme/sites/site_acme');
      expect(status).toBe(200);
      expectValidAgainstSpec('Site', body);
      expect(body).toMatchObject({
        id: 'site_acme',
        title: 'docs.acme.test',
        siteSpaces: 1,
        adaptiveContent: { enabled: true },
      });
      expect((await get(tokens.site, '/v1/orgs/globex/sites/site_acme')).status).toBe(404);
      // A space installation covers no site.
      expect((await get(tokens.space, '/v1/orgs/acme/sites/site_acme')).status).toBe(404);
    },
  );
});

describe('routing on paths public endpoints share with the API', () => {
  it('sends a request without a host API token to the public endpoint, and one with a bad one to the API', async () => {
    const echoed = await fetch(`${endpointOf(host, 'wire-echo')}`, {
      headers: { authorization: 'Bearer someone-elses-token' },
    });
    expect(echoed.status).toBe(200);
    expect((await echoed.json()).event.request.headers.authorization).toBe('Bearer someone-elses-token');
    const api = await fetch(`${endpointOf(host, 'wire-echo')}`, {
      headers: { authorization: 'Bearer iht_not-a-real-token' },
    });
    expect(api.status).toBe(401);
    expect((await api.json()).error.code).toBe('ERR_UNAUTHORIZED');
  });
});

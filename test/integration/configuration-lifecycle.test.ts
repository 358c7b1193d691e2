// The configuration lifecycle of docs/installations.md through the real host: install (pending), refused edits
// (422, nothing stored), accepted edits (active, installation_setup with previous), secrets kept
// out of every response, and uninstall revoking the installation's token.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestHost, type TestHost } from '../helpers/host.ts';
import { eventsOf, eventually, install, patchConfiguration, tokenOf } from '../helpers/lifecycle.ts';

const API_KEY = 'settings-demo-secret-3f9c1a';
let host: TestHost;
let id: string;
let installedView: any;
const responseTexts: string[] = [];

beforeAll(async () => {
  host = await startTestHost({
    dirs: ['test/fixtures/lifecycle'],
    autoInstall: false,
    env: { ...process.env, SETTINGS_DEMO_API_KEY: API_KEY },
  });
  const created = await install(host, 'settings-demo', {
    organization: 'acme',
    target: 'space',
    space: 'space_acme_docs',
  });
  expect(created.status).toBe(201);
  installedView = created.json;
  id = created.json.id;
  responseTexts.push(JSON.stringify(created.json));
});
afterAll(() => host?.close());

async function readInstallation(installationId = id) {
  const response = await host.admin(`/v1/installations/${installationId}`);
  const text = await response.text();
  responseTexts.push(text);
  return { status: response.status, json: JSON.parse(text) };
}

async function setupEvents(installationId = id) {
  return (await eventsOf(host, 'settings-demo')).filter((event) => event.installationId === installationId).reverse();
}

describe('installing into a space', () => {
  it('starts pending with the defaults applied and the button URL exposed', () => {
    expect(installedView.status).toBe('pending');
    expect(installedView.configuration).toEqual({ limit: 10 });
    // The callback URL with the connect ticket that lets an admin's click start the flow.
    expect(installedView.urls.buttons).toEqual({
      connection: expect.stringMatching(
        new RegExp(`^${installedView.urls.publicEndpoint}/connect\\?ticket=[\\w-]+\\.[\\w-]+$`),
      ),
    });
  });

  it('emits installation_setup then space_installation_setup, both in the event log', async () => {
    const events = await eventually(async () => {
      const found = await setupEvents();
      expect(found.map((event) => event.type)).toEqual(['installation_setup', 'space_installation_setup']);
      return found;
    });
    expect(events[0].status).toBe(200);
    expect(events[0].logs[0].text).toBe('installation_setup {"status":"pending","previous":null}');
    expect(events[1].logs[0].text).toBe('space_installation_setup {"status":"pending","spaceId":"space_acme_docs"}');
  });
});

describe('PATCH /v1/installations/:id/configuration', () => {
  it('refuses a wrong type and a value outside the enum with 422 listing each property, storing nothing', async () => {
    const refused = await patchConfiguration(host, id, { channel: 'nope', limit: 'ten', notify: 'yes' });
    expect(refused.status).toBe(422);
    expect(refused.json.error.code).toBe('ERR_CONFIGURATION_INVALID');
    expect(refused.json.error.details).toEqual(
      expect.arrayContaining([
        { pointer: '/channel', message: 'must be one of: general, releases' },
        { pointer: '/limit', message: 'must be number' },
        { pointer: '/notify', message: 'must be boolean' },
      ]),
    );
    expect(refused.json.error.message).toContain('/channel: must be one of: general, releases');
    const { json } = await readInstallation();
    expect(json.status).toBe('pending');
    expect(json.configuration).toEqual({ limit: 10 });
  });

  it('refuses an unknown property with 422', async () => {
    const refused = await patchConfiguration(host, id, { colour: 'red', channel: 'general' });
    expect(refused.status).toBe(422);
    expect(refused.json.error.details).toEqual([
      { pointer: '/colour', message: 'is not a property of this configuration' },
    ]);
    expect((await readInstallation()).json.configuration).toEqual({ limit: 10 });
  });

  it('refuses to set a button property: only its flow stores it', async () => {
    const refused = await patchConfiguration(host, id, { connection: { access_token: 'forged' } });
    expect(refused.status).toBe(422);
    expect(refused.json.error.details[0].pointer).toBe('/connection');
    expect(refused.json.error.details[0].message).toMatch(/set by its button/);
  });

  it('refuses a body that is not a JSON object', async () => {
    const response = await host.admin(`/v1/installations/${id}/configuration`, {
      method: 'PATCH',
      body: '["channel"]',
    });
    expect(response.status).toBe(400);
  });

  it(
    'becomes active once the required properties pass, ' + 'announcing installation_setup with the previous state',
    async () => {
      const accepted = await patchConfiguration(host, id, { channel: 'general', notify: true });
      responseTexts.push(accepted.text);
      expect(accepted.status).toBe(200);
      expect(accepted.json.status).toBe('active');
      expect(accepted.json.configuration).toEqual({ limit: 10, channel: 'general', notify: true });
      const events = await eventually(async () => {
        const found = await setupEvents();
        expect(found).toHaveLength(4);
        return found;
      });
      expect(events[2].type).toBe('installation_setup');
      expect(events[2].logs[0].text).toBe(
        'installation_setup {"status":"active","previous":{"status":"pending","configuration":{"limit":10}}}',
      );
      // A space installation's edit is also announced with GitBook's event for space installations.
      expect(events[3].type).toBe('space_installation_setup');
      expect(events[3].logs[0].text).toBe(
        'space_installation_setup {"status":"active","spaceId":"space_acme_docs",' +
          '"previous":{"status":"pending","configuration":{"limit":10}}}',
      );
    },
  );

  it(
    'unsets a property with null: its default comes back, and ' + 'a missing required one makes it pending again',
    async () => {
      expect((await patchConfiguration(host, id, { limit: 25 })).json.configuration.limit).toBe(25);
      const reset = await patchConfiguration(host, id, { limit: null });
      expect(reset.json.configuration.limit).toBe(10);
      const unset = await patchConfiguration(host, id, { channel: null });
      expect(unset.json.status).toBe('pending');
      expect(unset.json.configuration).toEqual({ limit: 10, notify: true });
      expect((await patchConfiguration(host, id, { channel: 'releases' })).json.status).toBe('active');
    },
  );

  it('answers 404 for an unknown installation', async () => {
    expect((await patchConfiguration(host, 'inst_nope', { channel: 'general' })).status).toBe(404);
  });
});

describe("the installation's own PATCH /v1/installation/configuration", () => {
  const selfPatch = async (token: string, patch: unknown) => {
    const response = await fetch(`${host.url}/v1/installation/configuration`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(patch),
    });
    const text = await response.text();
    responseTexts.push(text);
    return { status: response.status, json: JSON.parse(text) };
  };

  it(
    'is validated by the same rules (422, nothing stored) ' + 'but may fill a button property, shown redacted',
    async () => {
      const created = await install(host, 'settings-demo', {
        organization: 'acme',
        target: 'space',
        space: 'space_acme_docs',
      });
      const token = await tokenOf(host, created.json.id);
      const refused = await selfPatch(token, { channel: 'nope', colour: 'red' });
      expect(refused.status).toBe(422);
      expect(refused.json.error.details.map((detail: { pointer: string }) => detail.pointer).sort()).toEqual([
        '/channel',
        '/colour',
      ]);
      expect((await host.stores.installations.getInstallation(created.json.id))!.configuration).toEqual({ limit: 10 });

      const accepted = await selfPatch(token, {
        connection: { access_token: 'provider-token-77' },
        channel: 'general',
      });
      expect(accepted.status).toBe(200);
      expect(accepted.json.status).toBe('active');
      expect(accepted.json.configuration).toEqual({ limit: 10, channel: 'general', connection: '[redacted]' });
      expect((await host.stores.installations.getInstallation(created.json.id))!.configuration.connection).toEqual({
        access_token: 'provider-token-77',
      });
      expect(responseTexts.join('\n')).not.toContain('provider-token-77');
    },
  );

  it('needs the installation token', async () => {
    expect((await selfPatch('iht_not-a-token', { channel: 'general' })).status).toBe(401);
  });
});

describe('organization installations', () => {
  it('carry space_selection and are configured by configurations.account', async () => {
    const created = await install(host, 'settings-demo', {
      organization: 'acme',
      target: 'organization',
      space_selection: ['space_acme_docs'],
    });
    expect(created.status).toBe(201);
    expect(created.json.space_selection).toEqual(['space_acme_docs']);
    expect(created.json.status).toBe('pending');
    expect((await patchConfiguration(host, created.json.id, { channel: 'general' })).status).toBe(422);
    const accepted = await patchConfiguration(host, created.json.id, { workspace: 'docs' });
    expect(accepted.json.status).toBe('active');
    expect(accepted.json.space_selection).toEqual(['space_acme_docs']);
  });
});

describe('secrets', () => {
  it('never appear in installation or configuration responses', async () => {
    const token = await tokenOf(host, id);
    await readInstallation();
    const all = responseTexts.join('\n');
    expect(responseTexts.length).toBeGreaterThan(3);
    expect(all).not.toContain(API_KEY);
    expect(all).not.toContain(token);
    expect(all).not.toMatch(/secrets|apiTokens/);
  });
});

describe('DELETE /v1/installations/:id', () => {
  it('uninstalls and revokes the token: later API calls with it get 401', async () => {
    const created = await install(host, 'settings-demo', {
      organization: 'acme',
      target: 'space',
      space: 'space_acme_internal',
    });
    const token = await tokenOf(host, created.json.id);
    const ticket = new URL(created.json.urls.buttons.connection).searchParams.get('ticket');
    const callAsInstallation = () =>
      fetch(`${host.url}/v1/installation/oauth/state`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ticket }),
      });
    expect((await callAsInstallation()).status).toBe(200);

    const deleted = await host.admin(`/v1/installations/${created.json.id}`, { method: 'DELETE' });
    expect(deleted.status).toBe(204);
    expect((await readInstallation(created.json.id)).status).toBe(404);
    const afterwards = await callAsInstallation();
    expect(afterwards.status).toBe(401);
    expect((await afterwards.json()).error.code).toBe('ERR_UNAUTHORIZED');
    expect((await host.admin(`/v1/installations/${created.json.id}`, { method: 'DELETE' })).status).toBe(404);
  });

  it('needs the admin token', async () => {
    expect((await fetch(`${host.url}/v1/installations/${id}`, { method: 'DELETE' })).status).toBe(401);
    expect((await readInstallation()).status).toBe(200);
  });
});

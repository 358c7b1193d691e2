// A file store survives a restart: after close() and a new createHost() on the same file, the
// installation, its configuration and status, its token and its event log are all still there.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestHost, type TestHost } from '../helpers/host.ts';
import { eventsOf, eventually, install, patchConfiguration, tokenOf, type LoggedEvent } from '../helpers/lifecycle.ts';

const dir = mkdtempSync(join(tmpdir(), 'host-restart-'));
const options = {
  dirs: ['test/fixtures/lifecycle'],
  autoInstall: false,
  dataPath: join(dir, 'host.db'),
  env: { ...process.env, SETTINGS_DEMO_API_KEY: 'x' },
};
let host: TestHost | undefined;

afterAll(async () => {
  await host?.close();
  rmSync(dir, { recursive: true, force: true });
});

const asInstallation = (url: string, token: string, path: string, body: unknown) =>
  fetch(`${url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

/** The connect ticket the admin view puts in the installation's button URL. */
async function ticketOf(host: TestHost, id: string): Promise<string> {
  const view = await (await host.admin(`/v1/installations/${id}`)).json();
  return new URL(view.urls.buttons.connection).searchParams.get('ticket')!;
}

describe('restarting on the same data file', () => {
  let id: string;
  let token: string;
  let before: { view: any; events: LoggedEvent[]; state: string; ticket: string };

  beforeAll(async () => {
    const first = await startTestHost(options);
    host = first;
    id = (await install(first, 'settings-demo', { organization: 'acme', target: 'space', space: 'space_acme_docs' }))
      .json.id;
    await patchConfiguration(first, id, { channel: 'general' });
    token = await tokenOf(first, id);
    const stateAnswer = await asInstallation(first.url, token, '/v1/installation/oauth/state', {
      ticket: await ticketOf(first, id),
    });
    expect(stateAnswer.status).toBe(200);
    const events = await eventually(async () => {
      const found = await eventsOf(first, 'settings-demo');
      // The organization installation made for it (installation_setup), the space installation's
      // installation_setup and space_installation_setup, and both again after the edit.
      expect(found).toHaveLength(5);
      return found;
    });
    before = {
      view: await (await first.admin(`/v1/installations/${id}`)).json(),
      events,
      state: (await stateAnswer.json()).state,
      ticket: await ticketOf(first, id),
    };
    await first.close();
    host = await startTestHost(options);
  });

  it('keeps the installation with its configuration and status', async () => {
    const view = await (await host!.admin(`/v1/installations/${id}`)).json();
    expect(view.status).toBe('active');
    expect(view.configuration).toEqual({ limit: 10, channel: 'general' });
    expect({ ...view, urls: undefined }).toEqual({ ...before.view, urls: undefined });
  });

  it('keeps the installation token valid', async () => {
    expect(await tokenOf(host!, id)).toBe(token);
    // A ticket minted before the restart still starts a connection: both are signed with the kept secret.
    expect(
      (await asInstallation(host!.url, token, '/v1/installation/oauth/state', { ticket: before.ticket })).status,
    ).toBe(200);
  });

  it('keeps the event log', async () => {
    const events = await eventsOf(host!, 'settings-demo');
    expect(events).toEqual(before.events);
  });

  it('keeps issued OAuth states: one issued before the restart is accepted once after it', async () => {
    const consume = () =>
      fetch(`${host!.url}/v1/installation/oauth/state/consume`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ state: before.state }),
      });
    expect((await consume()).status).toBe(204);
    expect((await consume()).status).toBe(400);
  });
});

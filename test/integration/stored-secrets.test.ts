// Secrets stored for an integration on one host (SQLite): a variable outside the namespace makes
// the integration invalid until it is stored through the admin API, then the next request sees it
// (in a fresh isolate); a stored value wins over the environment and removing it falls back; the
// listing shows names and when and how each was set, never a value; a write by another process
// on the same database file (the command line) is picked up without a restart; without a key the
// host starts and refuses to store, saying how to configure one.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseKeyRing } from '../../host/secrets/keys.ts';
import { createSecretService } from '../../host/secrets/service.ts';
import { openSqliteStores } from '../../host/store/sqlite/open.ts';
import { startTestHost, waitFor, type TestHost } from '../helpers/host.ts';

const KEYS = `1:${Buffer.alloc(32, 7).toString('base64')}`;
const VENDOR = 'vendor-client-id-from-the-store';
const OWN_ENV = 'own-from-the-environment';
const dir = mkdtempSync(path.join(tmpdir(), 'stored-secrets-'));
const dataPath = path.join(dir, 'host.db');
let host: TestHost;

const put = (name: string, value: unknown, integration = 'secret-echo') =>
  host.admin(`/v1/integrations/${integration}/secrets/${name}`, { method: 'PUT', body: JSON.stringify({ value }) });
const listed = async () => (await host.admin('/v1/integrations/secret-echo/secrets')).json();
const endpoint = () =>
  host.devInstallations.find((dev) => dev.integration === 'secret-echo')?.installation?.urls.publicEndpoint;
const echo = async (): Promise<{ secrets: Record<string, string>; firstSeen?: string }> =>
  (await fetch(endpoint()!)).json();

beforeAll(async () => {
  host = await startTestHost({
    dirs: ['test/fixtures/secret-echo'],
    dataPath,
    secretsPollMs: 100,
    env: {
      ...process.env,
      HOST_SECRETS_KEYS: KEYS,
      SECRET_ECHO_OWN: OWN_ENV,
      VENDOR_CLIENT_ID: 'exported-but-never-read',
    },
  });
});
afterAll(async () => {
  await host?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('secrets stored for an integration', () => {
  it(
    'keep an integration whose variable is outside its ' + 'namespace invalid until stored, naming the command',
    async () => {
      const integration = await (await host.admin('/v1/integrations/secret-echo')).json();
      expect(integration.status).toBe('invalid');
      expect(integration.errors).toEqual([
        expect.stringMatching(
          new RegExp(
            /\/secrets\/VENDOR: secret "VENDOR" cannot read VENDOR_CLIENT_ID: .* /.source +
              /store it for this integration instead: npm run secrets -- set secret-echo VENDOR_CLIENT_ID/.source,
          ),
        ),
      ]);
      expect(endpoint()).toBeUndefined();
      expect(await listed()).toEqual({
        integration: 'secret-echo',
        status: 'invalid',
        key: { configured: true, current: 1 },
        items: [],
        manifest: [
          { secret: 'OWN', variable: 'SECRET_ECHO_OWN', source: 'environment' },
          {
            secret: 'VENDOR',
            variable: 'VENDOR_CLIENT_ID',
            source: 'missing',
            command: 'npm run secrets -- set secret-echo VENDOR_CLIENT_ID',
          },
        ],
      });
    },
  );

  it('make it ready when stored through the admin API; the next request sees the value', async () => {
    const response = await put('VENDOR_CLIENT_ID', VENDOR);
    expect(response.status).toBe(201);
    const body = await response.json();
    expect(body).toEqual({
      name: 'VENDOR_CLIENT_ID',
      setAt: expect.any(String),
      setBy: 'api',
      keyId: 1,
      readable: true,
      usedBy: ['VENDOR'],
      integrationStatus: 'ready',
    });
    expect(endpoint()).toBeDefined();
    expect(await echo()).toEqual({ secrets: { OWN: OWN_ENV, VENDOR }, firstSeen: VENDOR });
  });

  it('list names, when and how each was set, and where each manifest secret comes from, never a value', async () => {
    const view = await listed();
    expect(view.status).toBe('ready');
    expect(view.items).toEqual([
      {
        name: 'VENDOR_CLIENT_ID',
        setAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        setBy: 'api',
        keyId: 1,
        readable: true,
        usedBy: ['VENDOR'],
      },
    ]);
    expect(view.manifest).toEqual([
      { secret: 'OWN', variable: 'SECRET_ECHO_OWN', source: 'environment' },
      { secret: 'VENDOR', variable: 'VENDOR_CLIENT_ID', source: 'store' },
    ]);
    expect(JSON.stringify(view)).not.toContain(VENDOR);
  });

  it(
    'take precedence over the environment, reaching the next ' + 'request in a fresh isolate; removing one falls back',
    async () => {
      expect((await put('VENDOR_CLIENT_ID', 'rotated-vendor-id')).status).toBe(200);
      expect((await put('SECRET_ECHO_OWN', 'own-from-the-store')).status).toBe(201);
      // A global the first isolate filled with the old value is gone: the new isolate saw the new one first.
      expect(await echo()).toEqual({
        secrets: { OWN: 'own-from-the-store', VENDOR: 'rotated-vendor-id' },
        firstSeen: 'rotated-vendor-id',
      });
      expect(
        (await host.admin('/v1/integrations/secret-echo/secrets/SECRET_ECHO_OWN', { method: 'DELETE' })).status,
      ).toBe(204);
      expect((await echo()).secrets).toEqual({ OWN: OWN_ENV, VENDOR: 'rotated-vendor-id' });
    },
  );

  it('see a value another process wrote to the database (the command line) without a restart', async () => {
    const cli = openSqliteStores(dataPath);
    try {
      const service = createSecretService({
        store: cli.secrets,
        ring: parseKeyRing(KEYS, 'HOST_SECRETS_KEYS'),
        now: Date.now,
      });
      await service.set('secret-echo', 'VENDOR_CLIENT_ID', 'set-from-the-command-line', 'cli');
    } finally {
      await cli.close();
    }
    await waitFor(async () => (await echo()).secrets.VENDOR === 'set-from-the-command-line');
    expect((await listed()).items[0]).toMatchObject({ name: 'VENDOR_CLIENT_ID', setBy: 'cli' });
  });

  it('make the integration invalid again when the only source is removed', async () => {
    expect(
      (await host.admin('/v1/integrations/secret-echo/secrets/VENDOR_CLIENT_ID', { method: 'DELETE' })).status,
    ).toBe(204);
    const answer = await fetch(endpoint()!);
    expect(answer.status).toBe(409);
    expect((await answer.json()).error.code).toBe('ERR_INTEGRATION_INVALID');
    expect(
      (await host.admin('/v1/integrations/secret-echo/secrets/VENDOR_CLIENT_ID', { method: 'DELETE' })).status,
    ).toBe(404);
  });

  it('refuse bad requests with the field named, and unknown or built-in integrations', async () => {
    const refused = async (response: Promise<Response>) => {
      const answer = await response;
      return { status: answer.status, error: (await answer.json()).error };
    };
    expect(await refused(put('lower-case-dash', 'v'))).toMatchObject({
      status: 400,
      error: { code: 'ERR_VALIDATION', details: [{ pointer: '/name' }] },
    });
    expect(await refused(put('VENDOR_CLIENT_ID', ''))).toMatchObject({
      status: 400,
      error: { details: [{ pointer: '/value', message: expect.stringMatching(/must not be empty/) }] },
    });
    expect(await refused(put('VENDOR_CLIENT_ID', 'v', 'nobody'))).toMatchObject({
      status: 404,
      error: { code: 'ERR_INTEGRATION_NOT_FOUND' },
    });
    expect(await refused(put('VENDOR_CLIENT_ID', 'v', 'host:webhook'))).toMatchObject({
      status: 404,
      error: {
        code: 'ERR_INTEGRATION_NOT_FOUND',
        message: expect.stringMatching(/built-in integrations take no secrets/),
      },
    });
    expect(await refused(put('VENDOR_CLIENT_ID', 'v', 'webhook'))).toMatchObject({
      status: 404,
      error: { message: 'integration "webhook" not found; the host\'s built-in webhook integration is "host:webhook"' },
    });
    expect(
      await refused(
        host.admin('/v1/integrations/secret-echo/secrets/X', {
          method: 'PUT',
          body: JSON.stringify({ value: 'v', extra: 1 }),
        }),
      ),
    ).toMatchObject({ status: 400, error: { details: [{ pointer: '/extra' }] } });
    expect(
      await refused(
        host.admin('/v1/integrations/secret-echo/secrets/X', {
          method: 'PUT',
          body: 'v',
          headers: { 'content-type': 'text/plain' },
        }),
      ),
    ).toMatchObject({ status: 415 });
    expect((await fetch(`${host.url}/v1/integrations/secret-echo/secrets`)).status).toBe(401);
  });
});

describe('a host without a secrets key', () => {
  let keyless: TestHost;
  beforeAll(async () => {
    keyless = await startTestHost({
      dirs: ['test/fixtures/secret-echo'],
      dataPath,
      env: { ...process.env, HOST_SECRETS_KEYS: '', SECRET_ECHO_OWN: OWN_ENV },
    });
  });
  afterAll(() => keyless?.close());

  it('starts, and refuses to store a secret, saying how to provide a key', async () => {
    const response = await keyless.admin('/v1/integrations/secret-echo/secrets/VENDOR_CLIENT_ID', {
      method: 'PUT',
      body: JSON.stringify({ value: 'v' }),
    });
    expect(response.status).toBe(409);
    const { error } = await response.json();
    expect(error.code).toBe('ERR_SECRETS_KEY_MISSING');
    expect(error.message).toMatch(
      new RegExp(
        /no secrets key is configured; set HOST_SECRETS_KEYS=1:<key> /.source +
          /\(or HOST_SECRETS_KEYS_FILE=<file> holding that line\).*npm run secrets -- new-key/.source,
      ),
    );
    expect((await (await keyless.admin('/v1/integrations/secret-echo/secrets')).json()).key).toEqual({
      configured: false,
    });
  });
});

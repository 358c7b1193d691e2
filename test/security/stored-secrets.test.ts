// Hostile inputs against stored integration secrets: names with path and prototype tricks, huge
// and malformed values, a ciphertext copied into another integration's row, a host with the wrong
// key, an integration naming another's variable, and one printing its secrets. Each is refused or
// fails closed, and no stored value appears in the database file, the host log, the event log or
// any API answer (fixtures: test/fixtures/secret-echo, test/fixtures/secret-hostile).
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHost, waitFor, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';

const KEYS = `1:${Buffer.alloc(32, 21).toString('base64')}`;
const VENDOR = 'stored-vendor-id-5a7e0c';
const TOKEN = 'leaker-token-9d3b1f7';
const PEM =
  '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nBKcwggSjAgEAAoIBAQC7leakerkey\n-----END PRIVATE ' +
  'KEY-----';
const PEM_LINES = PEM.split('\n').slice(1, -1);
const dir = mkdtempSync(path.join(tmpdir(), 'stored-secrets-attack-'));
const dataPath = path.join(dir, 'host.db');
let host: TestHost;

const put = (integration: string, name: string, body: string, contentType = 'application/json') =>
  host.admin(`/v1/integrations/${integration}/secrets/${name}`, {
    method: 'PUT',
    body,
    headers: { 'content-type': contentType },
  });
const statusOf = async (target: TestHost, name: string) =>
  (await (await target.admin(`/v1/integrations/${name}`)).json()) as { status: string; errors?: string[] };
const endpointOf = (target: TestHost, name: string) =>
  target.devInstallations.find((dev) => dev.integration === name)?.installation?.urls.publicEndpoint;

/** Every value this file stores, and every line of the PEM. */
const VALUES = [VENDOR, TOKEN, ...PEM_LINES];
function expectNoValueIn(text: string, where: string): void {
  for (const value of VALUES) expect(text, `${where} holds a stored value`).not.toContain(value);
}

beforeAll(async () => {
  host = await startTestHost({
    dirs: ['test/fixtures/secret-echo', 'test/fixtures/secret-hostile', 'fixtures/integrations/hello'],
    dataPath,
    secretsPollMs: 100,
    env: { ...process.env, HOST_SECRETS_KEYS: KEYS, SECRET_ECHO_OWN: 'own' },
  });
  expect((await put('secret-echo', 'VENDOR_CLIENT_ID', JSON.stringify({ value: VENDOR }))).status).toBe(201);
  expect((await put('secret-leaker', 'SECRET_LEAKER_TOKEN', JSON.stringify({ value: TOKEN }))).status).toBe(201);
  expect((await put('secret-leaker', 'LEAKER_PRIVATE_KEY', JSON.stringify({ value: PEM }))).status).toBe(201);
});
afterAll(async () => {
  await host?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('stored secrets under attack', () => {
  it('refuses names with path, encoding and length tricks, and stores nothing for them', async () => {
    const before = (await (await host.admin('/v1/integrations/secret-echo/secrets')).json()).items.length;
    const names = [
      '..%2F..%2Fetc%2Fpasswd',
      'A%2FB',
      'A%00B',
      'A-B',
      '1ABC',
      'A%20B',
      'A%0AB',
      '%C3%A9T%C3%89',
      'X'.repeat(129),
    ];
    for (const name of names) {
      const answer = await put('secret-echo', name, JSON.stringify({ value: 'v' }));
      expect(answer.status, name).toBe(400);
      expect((await answer.json()).error.details[0].pointer).toBe('/name');
    }
    for (const integration of ['..%2Fsecret-echo', 'secret-echo%00', 'SECRET-ECHO', '__proto__', 'constructor']) {
      expect((await put(integration, 'VENDOR_CLIENT_ID', JSON.stringify({ value: 'v' }))).status, integration).toBe(
        404,
      );
    }
    expect((await (await host.admin('/v1/integrations/secret-echo/secrets')).json()).items.length).toBe(before);
  });

  it('keeps prototype-named secrets as plain names: stored, listed, removed, nothing polluted', async () => {
    for (const name of ['__proto__', 'constructor', 'hasOwnProperty']) {
      expect((await put('secret-echo', name, JSON.stringify({ value: 'proto-value' }))).status, name).toBe(201);
    }
    const listed = await (await host.admin('/v1/integrations/secret-echo/secrets')).json();
    expect(listed.items.map((item: { name: string }) => item.name)).toEqual(
      expect.arrayContaining(['__proto__', 'constructor', 'hasOwnProperty']),
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(listed)).toBe(Object.prototype);
    for (const name of ['__proto__', 'constructor', 'hasOwnProperty'])
      expect((await host.admin(`/v1/integrations/secret-echo/secrets/${name}`, { method: 'DELETE' })).status).toBe(204);
    // The integration still serves its real secret.
    expect(
      ((await (await fetch(endpointOf(host, 'secret-echo')!)).json()) as { secrets: Record<string, string> }).secrets
        .VENDOR,
    ).toBe(VENDOR);
  });

  it('refuses huge, malformed and ill-formed values without quoting them', async () => {
    const huge = 'h'.repeat(64 * 1024 + 1);
    const tooBig = await put('secret-echo', 'BIG', JSON.stringify({ value: huge }));
    expect(tooBig.status).toBe(400);
    const tooBigText = await tooBig.text();
    expect(tooBigText).toMatch(/at most 65536 bytes/);
    expect(tooBigText).not.toContain('hhhhhhhh');
    const flood = await put('secret-echo', 'FLOOD', JSON.stringify({ value: 'f'.repeat(8 * 1024 * 1024) }));
    expect(flood.status).toBe(413);
    const malformed = await put('secret-echo', 'BROKEN', `{"value": "${VENDOR}-but-broken`);
    expect(malformed.status).toBe(400);
    const malformedText = await malformed.text();
    expect(malformedText).toMatch(/not valid UTF-8 JSON/);
    expect(malformedText).not.toContain(VENDOR);
    const surrogate = await put('secret-echo', 'LONE', '{"value": "a\\ud800b"}');
    expect(surrogate.status).toBe(400);
    expect(await surrogate.text()).toMatch(/lone surrogate/);
    const notText = await put('secret-echo', 'OBJECT', JSON.stringify({ value: { nested: VENDOR } }));
    expect(notText.status).toBe(400);
    expect(await notText.text()).not.toContain(VENDOR);
    expect(
      (await (await host.admin('/v1/integrations/secret-echo/secrets')).json()).items.map(
        (item: { name: string }) => item.name,
      ),
    ).toEqual(['VENDOR_CLIENT_ID']);
  });

  it("gives an integration naming another's variable nothing of the value stored for the other", async () => {
    const thief = await statusOf(host, 'secret-thief');
    expect(thief.status).toBe('invalid');
    expect(thief.errors?.join('\n')).toMatch(/cannot read VENDOR_CLIENT_ID/);
  });

  it("does not decrypt a ciphertext copied into another integration's row", async () => {
    const db = new DatabaseSync(dataPath);
    try {
      db.exec(
        "INSERT INTO integration_secrets SELECT 'secret-thief', name, key_id, nonce, ciphertext, set_at, set_by " +
          "FROM integration_secrets WHERE integration = 'secret-echo' AND name = 'VENDOR_CLIENT_ID'",
      );
      db.exec('UPDATE integration_secrets_revision SET revision = revision + 1');
    } finally {
      db.close();
    }
    await waitFor(async () =>
      ((await statusOf(host, 'secret-thief')).errors ?? [])
        .join('\n')
        .includes('copied from another integration or name'),
    );
    expect((await statusOf(host, 'secret-thief')).status).toBe('invalid');
    expect(endpointOf(host, 'secret-thief')).toBeUndefined();
    const listed = await (await host.admin('/v1/integrations/secret-thief/secrets')).json();
    expect(listed.items).toEqual([
      expect.objectContaining({
        name: 'VENDOR_CLIENT_ID',
        readable: false,
        problem: expect.stringMatching(/does not decrypt with key 1/),
      }),
    ]);
  });

  it('masks the secrets an integration prints, in the host log and the event log', async () => {
    const endpoint = endpointOf(host, 'secret-leaker')!;
    expect((await fetch(endpoint)).status).toBe(200);
    expect((await fetch(`${endpoint}?throw`)).status).toBe(500);
    const events = await (await host.admin('/v1/integrations/secret-leaker/events?limit=10')).json();
    const lines = events.items
      .flatMap((entry: { logs: { text: string }[] }) => entry.logs.map((line) => line.text))
      .join('\n');
    expect(lines).toMatch(/calling the vendor with token \*\*\*/);
    expect(lines).toMatch(/vendor refused token=\*\*\*/);
    expect(lines).toMatch(/the key is \*\*\*/);
    expectNoValueIn(lines, 'the event log');
    await waitFor(() => host.logs.some((line) => line.includes('vendor refused token=***')));
    expectNoValueIn(host.logs.join('\n'), 'the host log');
  });

  it('keeps every stored value out of the database file and every API answer', async () => {
    const bytes = readdirSync(dir)
      .filter((name) => name.startsWith('host.db'))
      .map((name) => readFileSync(path.join(dir, name)).toString('latin1'))
      .join('');
    expectNoValueIn(bytes, 'the database file');
    for (const route of [
      '/v1/integrations',
      '/v1/integrations/secret-echo',
      '/v1/integrations/secret-leaker',
      '/v1/integrations/secret-echo/secrets',
      '/v1/integrations/secret-leaker/secrets',
      '/v1/installations',
      '/v1/integrations/secret-echo/events',
    ]) {
      expectNoValueIn(await (await host.admin(route)).text(), route);
    }
  });

  it('fails closed on a host with the wrong key under the same id', async () => {
    const wrong = await startTestHost({
      dirs: ['test/fixtures/secret-echo'],
      dataPath,
      env: {
        ...process.env,
        HOST_SECRETS_KEYS: `1:${Buffer.alloc(32, 22).toString('base64')}`,
        SECRET_ECHO_OWN: 'own',
        VENDOR_CLIENT_ID: 'never-read',
      },
    });
    try {
      const echo = await statusOf(wrong, 'secret-echo');
      expect(echo.status).toBe('invalid');
      expect(echo.errors?.join('\n')).toMatch(
        new RegExp(
          "reads VENDOR_CLIENT_ID from this host's secret store, " +
            'where its value cannot be read: it does not decrypt with key 1',
        ),
      );
      expect(wrong.logs.join('\n')).toMatch(/stored secret\(s\) cannot be decrypted with the configured keys/);
      expectNoValueIn(wrong.logs.join('\n'), 'the wrong-key host log');
    } finally {
      await wrong.close();
    }
  });

  it('leaves the host answering', async () => {
    await expectHostHealthy(host);
  });
});

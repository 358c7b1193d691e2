// Stored secrets shared by two hosts on one PostgreSQL (each in its own process, polling turned
// off so only the database's notification can carry a change): a secret stored through host A
// makes the integration ready on B too, a new value set through A reaches B's next requests, and
// a value written straight to the database (the command line) reaches both. Only 127.0.0.1.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../host/common/logger.ts';
import { parseKeyRing } from '../../host/secrets/keys.ts';
import { createSecretService } from '../../host/secrets/service.ts';
import { openPostgresStores } from '../../host/store/postgres/open.ts';
import { waitFor } from '../helpers/host.ts';
import { startHostProcess, type HostProcess } from '../helpers/host-process.ts';
import { postgresUnavailable, startPostgres, type TestPostgres } from '../helpers/postgres.ts';

const KEYS = `1:${Buffer.alloc(32, 3).toString('base64')}`;
let server: TestPostgres | undefined;
const hosts: HostProcess[] = [];

beforeAll(async () => {
  if (postgresUnavailable === undefined) server = await startPostgres();
}, 60_000);
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.kill('SIGKILL')));
});
afterAll(async () => {
  await server?.stop();
});

async function echo(host: HostProcess, installationId: string): Promise<{ status: number; vendor?: string }> {
  const response = await fetch(`${host.url}/v1/integrations/secret-echo/installations/${installationId}`);
  if (response.status !== 200) return { status: response.status };
  return { status: 200, vendor: ((await response.json()) as { secrets: Record<string, string> }).secrets.VENDOR };
}

describe.skipIf(postgresUnavailable !== undefined)('stored secrets on several hosts', () => {
  it('reach every host on the database without a restart, by notification alone', async () => {
    const url = await server!.createDatabase();
    // An hour between looks at the revision: within this test only the notification can tell B.
    const options = {
      storeUrl: url,
      dirs: ['test/fixtures/secret-echo'],
      autoInstall: false,
      secretsPollMs: 3_600_000,
      env: { HOST_SECRETS_KEYS: KEYS, SECRET_ECHO_OWN: 'own' },
    };
    const a = await startHostProcess(options);
    hosts.push(a);
    const b = await startHostProcess(options);
    hosts.push(b);
    const statusOn = async (host: HostProcess) =>
      ((await (await host.admin('/v1/integrations/secret-echo')).json()) as { status: string }).status;
    expect(await statusOn(b)).toBe('invalid');

    const stored = await a.admin('/v1/integrations/secret-echo/secrets/VENDOR_CLIENT_ID', {
      method: 'PUT',
      body: JSON.stringify({ value: 'first-value' }),
    });
    expect(stored.status).toBe(201);
    await waitFor(async () => (await statusOn(b)) === 'ready');
    const created = await a.admin('/v1/integrations/secret-echo/installations', {
      method: 'POST',
      body: JSON.stringify({ organization: 'acme', target: 'organization' }),
    });
    expect(created.status).toBe(201);
    const installationId = ((await created.json()) as { id: string }).id;
    expect(await echo(b, installationId)).toEqual({ status: 200, vendor: 'first-value' });

    expect(
      (
        await a.admin('/v1/integrations/secret-echo/secrets/VENDOR_CLIENT_ID', {
          method: 'PUT',
          body: JSON.stringify({ value: 'second-value' }),
        })
      ).status,
    ).toBe(200);
    expect(await echo(a, installationId)).toEqual({ status: 200, vendor: 'second-value' });
    await waitFor(async () => (await echo(b, installationId)).vendor === 'second-value');

    // The command line writes to the database directly; both hosts follow.
    const cli = await openPostgresStores(url, { log: createMemoryLogger() });
    try {
      await createSecretService({
        store: cli.secrets,
        ring: parseKeyRing(KEYS, 'HOST_SECRETS_KEYS'),
        now: Date.now,
      }).set('secret-echo', 'VENDOR_CLIENT_ID', 'third-value', 'cli');
    } finally {
      await cli.close();
    }
    await waitFor(
      async () =>
        (await echo(a, installationId)).vendor === 'third-value' &&
        (await echo(b, installationId)).vendor === 'third-value',
    );

    // Removed through B: A stops serving the integration as well.
    expect((await b.admin('/v1/integrations/secret-echo/secrets/VENDOR_CLIENT_ID', { method: 'DELETE' })).status).toBe(
      204,
    );
    await waitFor(async () => (await echo(a, installationId)).status === 409);
    expect(a.output() + b.output()).not.toMatch(/first-value|second-value|third-value/);
  }, 120_000);
});

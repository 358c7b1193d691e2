// Attack: a publisher names its upload after a variable of the host's environment (`database`, so
// that `DATABASE_URL` is in its namespace) and declares `S: ${{ env.DATABASE_URL }}`, to read the
// store's password from its own endpoint. Published integrations read none of the host's
// environment (only secrets the operator stored for them): the upload does not load, nothing is
// stored, and no answer carries the value.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { integrationFiles, tarGz } from '../helpers/archives.ts';
import { startTestHost, type TestHost } from '../helpers/host.ts';
import { issueToken, storedVersions, uploadTo } from '../helpers/publishing.ts';

const PASSWORD = 'pg-password-never-shown';
let host: TestHost;

beforeAll(async () => {
  host = await startTestHost({
    dirs: ['test/fixtures/env-echo'],
    autoInstall: false,
    workers: 1,
    env: { ...process.env, DATABASE_URL: `postgres://host:${PASSWORD}@db.invalid/store` },
  });
}, 120_000);
afterAll(async () => {
  await host?.close();
});

describe("an upload reading the host's environment", () => {
  it('does not load, stores nothing, and never answers the value', async () => {
    const { token } = await issueToken(host, 'acme');
    const [manifest, script] = integrationFiles('database');
    const files = [
      { ...manifest, body: `${manifest.body}secrets:\n  S: "\${{ env.DATABASE_URL }}"\n` },
      {
        ...script,
        body:
          "import { createIntegration } from 'sandbox-api';\n" +
          'export default createIntegration({ fetch: (request, context) => Response.json(context.environment) });\n',
      },
    ];
    const { status, body } = await uploadTo(host, 'database', token, new Uint8Array(tarGz(files)));
    expect(status).toBe(422);
    expect(body.error?.code).toBe('ERR_VERSION_INVALID');
    expect(body.error?.message).toContain('DATABASE_URL');
    expect(JSON.stringify(body)).not.toContain(PASSWORD);
    expect(await storedVersions(host, 'database')).toEqual([]);
    expect(host.integrations.some((entry) => entry.name === 'database')).toBe(false);
  });
});

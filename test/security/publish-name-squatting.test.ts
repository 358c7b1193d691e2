// Attack: a publisher is the first to publish a name that is already someone's: one of the
// platform's own integrations (first-party scopes), or a --dir folder of another organization on a
// host started with --published-over-dir (its installations would run the upload). Refused naming
// why, before anything is built; nothing is stored; the operator (admin token) may still publish.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { integrationFiles, tarGz } from '../helpers/archives.ts';
import { ADMIN_TOKEN, startTestHost, type TestHost } from '../helpers/host.ts';
import { issueToken, storedVersions, uploadTo } from '../helpers/publishing.ts';

let host: TestHost;

beforeAll(async () => {
  host = await startTestHost({
    dirs: ['test/fixtures/env-echo'],
    autoInstall: false,
    workers: 1,
    firstPartyIntegrations: ['house-crm'],
    publishedOverDir: true,
  });
}, 120_000);
afterAll(async () => {
  await host?.close();
});

describe('a first publish of a name that is already claimed', () => {
  it("is refused for one of the platform's own, and left to the operator", async () => {
    const { token } = await issueToken(host, 'acme');
    const archive = new Uint8Array(tarGz(integrationFiles('house-crm')));
    const refused = await uploadTo(host, 'house-crm', token, archive);
    expect(refused.status).toBe(403);
    expect(refused.body.error?.code).toBe('ERR_PUBLISHER_FORBIDDEN');
    expect(refused.body.error?.message).toContain(`"house-crm" is one of the platform's own`);
    expect(await storedVersions(host, 'house-crm')).toEqual([]);
    const byOperator = await uploadTo(host, 'house-crm', ADMIN_TOKEN, archive);
    expect(byOperator.status).toBe(201);
  });

  it('is refused for a folder of another organization, even with --published-over-dir', async () => {
    const { token } = await issueToken(host, 'globex');
    const archive = new Uint8Array(tarGz(integrationFiles('env-echo', 'globex')));
    const { status, body } = await uploadTo(host, 'env-echo', token, archive);
    expect(status).toBe(409);
    expect(body.error?.code).toBe('ERR_PUBLISH_CONFLICT');
    expect(body.error?.message).toContain('a --dir folder of another organization');
    expect(await storedVersions(host, 'env-echo')).toEqual([]);
    expect((await fetch(`${host.url}/health`)).status).toBe(200);
  });
});

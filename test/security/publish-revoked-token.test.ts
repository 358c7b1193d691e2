// Attack: a publisher token used after the operator revoked it (leaked from CI), or forged from a
// real publisher id with another secret. Refused with 403 naming the revocation (or only "not
// valid" for a forgery); nothing is stored and what serves stays.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { integrationFiles, tarGz } from '../helpers/archives.ts';
import type { TestHost } from '../helpers/host.ts';
import { issueToken, startPublishingHost, storedVersions, uploadTo } from '../helpers/publishing.ts';

let host: TestHost;
let publisher: { id: string; token: string };

beforeAll(async () => {
  host = await startPublishingHost();
  publisher = await issueToken(host, 'acme');
  const first = tarGz(integrationFiles('revoked', 'acme', 'one'));
  expect((await uploadTo(host, 'revoked', publisher.token, new Uint8Array(first))).status).toBe(201);
  expect((await host.admin(`/v1/publishers/${publisher.id}`, { method: 'DELETE' })).status).toBe(204);
}, 120_000);
afterAll(async () => {
  await host?.close();
});

describe('a revoked publisher token', () => {
  it('is refused naming the revocation, and stores nothing', async () => {
    const archive = tarGz(integrationFiles('revoked', 'acme', 'two'));
    const { status, body } = await uploadTo(host, 'revoked', publisher.token, new Uint8Array(archive));
    expect(status).toBe(403);
    expect(body.error?.code).toBe('ERR_FORBIDDEN');
    expect(body.error?.message).toContain(`publisher token ${publisher.id} was revoked at`);
    expect((await storedVersions(host, 'revoked')).map((entry) => entry.version)).toEqual([1]);
  });

  it('forged from a real id with another secret is only "not valid"', async () => {
    const forged = `ihp_${publisher.id}_${'A'.repeat(43)}`;
    const archive = tarGz(integrationFiles('revoked', 'acme', 'forged'));
    const { status, body } = await uploadTo(host, 'revoked', forged, new Uint8Array(archive));
    expect(status).toBe(403);
    expect(body.error?.message).toBe('publisher token is not valid');
    expect((await storedVersions(host, 'revoked')).map((entry) => entry.version)).toEqual([1]);
  });
});

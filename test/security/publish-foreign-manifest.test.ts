// Attack: a publisher of organization globex uploads a manifest that says `organization: acme`,
// to publish under another organization's name (and its platform data, scopes and installations).
// Refused naming both organizations; nothing is stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { integrationFiles, tarGz } from '../helpers/archives.ts';
import type { TestHost } from '../helpers/host.ts';
import { issueToken, startPublishingHost, storedVersions, uploadTo } from '../helpers/publishing.ts';

let host: TestHost;

beforeAll(async () => {
  host = await startPublishingHost();
}, 120_000);
afterAll(async () => {
  await host?.close();
});

describe('a manifest for another organization', () => {
  it('is refused for a publisher of another organization, and stores nothing', async () => {
    const { token, id } = await issueToken(host, 'globex');
    const archive = tarGz(integrationFiles('impostor', 'acme'));
    const { status, body } = await uploadTo(host, 'impostor', token, new Uint8Array(archive));
    expect(status).toBe(403);
    expect(body.error?.code).toBe('ERR_PUBLISHER_FORBIDDEN');
    expect(body.error?.message).toContain(
      `publisher token ${id} is for organization "globex", but "impostor" belongs to organization "acme"`,
    );
    expect(await storedVersions(host, 'impostor')).toEqual([]);
    expect(host.integrations.some((entry) => entry.name === 'impostor')).toBe(false);
  });
});

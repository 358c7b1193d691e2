// Attack: a publisher of organization globex acts on an integration acme published: uploads a
// version of that name claiming globex (a takeover of its installations), lists its versions,
// rolls it back. Each is refused naming why; acme's versions and what serves stay as they were.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { integrationFiles, tarGz } from '../helpers/archives.ts';
import type { TestHost } from '../helpers/host.ts';
import { issueToken, startPublishingHost, storedVersions, uploadTo } from '../helpers/publishing.ts';

let host: TestHost;
let acme: string;
let globex: { id: string; token: string };

beforeAll(async () => {
  host = await startPublishingHost();
  acme = (await issueToken(host, 'acme')).token;
  globex = await issueToken(host, 'globex');
  for (const greeting of ['one', 'two']) {
    const archive = tarGz(integrationFiles('shared-name', 'acme', greeting));
    expect((await uploadTo(host, 'shared-name', acme, new Uint8Array(archive))).status).toBe(201);
  }
}, 120_000);
afterAll(async () => {
  await host?.close();
});

describe("another organization's token", () => {
  it('cannot publish a version of an acme integration under its own organization', async () => {
    const archive = tarGz(integrationFiles('shared-name', 'globex', 'taken over'));
    const { status, body } = await uploadTo(host, 'shared-name', globex.token, new Uint8Array(archive));
    expect(status).toBe(403);
    expect(body.error?.code).toBe('ERR_PUBLISHER_FORBIDDEN');
    expect(body.error?.message).toContain(`"shared-name" belongs to organization "acme"`);
    expect((await storedVersions(host, 'shared-name')).map((entry) => entry.version)).toEqual([2, 1]);
  });

  it('cannot list or roll back its versions', async () => {
    const headers = { authorization: `Bearer ${globex.token}` };
    const listed = await fetch(`${host.url}/v1/integrations/shared-name/versions`, { headers });
    expect(listed.status).toBe(403);
    const rolled = await fetch(`${host.url}/v1/integrations/shared-name/versions/1/current`, {
      method: 'POST',
      headers,
    });
    expect(rolled.status).toBe(403);
    expect(((await rolled.json()) as { error: { message: string } }).error.message).toContain(
      `publisher token ${globex.id} is for organization "globex"`,
    );
    const current = (await storedVersions(host, 'shared-name')).find((entry) => entry.current);
    expect(current?.version).toBe(2);
    expect(host.integrations.find((entry) => entry.name === 'shared-name')?.published?.version).toBe(2);
  });

  it('cannot manage publishers: that is the operator’s', async () => {
    const answer = await fetch(`${host.url}/v1/publishers`, { headers: { authorization: `Bearer ${globex.token}` } });
    expect(answer.status).toBe(403);
  });
});

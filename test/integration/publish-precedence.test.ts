// A name both a --dir folder and the store hold: by default the folder serves and publishing that
// name to this host is refused with how to change it (a host that did not refuse it, sharing the
// store, keeps its folder and says so once); with publishedOverDir the published version serves.
import { afterAll, describe, expect, it } from 'vitest';
import { integrationFiles, tarGz } from '../helpers/archives.ts';
import { startTestHost, type TestHost } from '../helpers/host.ts';
import { issueToken, uploadTo } from '../helpers/publishing.ts';

const hosts: TestHost[] = [];
afterAll(async () => {
  await Promise.all(hosts.map((host) => host.close()));
});

/** env-echo's own files, renamed to nothing else: a published version of the folder's name. */
const envEcho = (greeting: string) => new Uint8Array(tarGz(integrationFiles('env-echo', 'acme', greeting)));

describe('a name served from a --dir folder', () => {
  it('cannot be published to that host by default, saying how to allow it', async () => {
    const host = await startTestHost({ dirs: ['test/fixtures/env-echo'], autoInstall: false, workers: 1 });
    hosts.push(host);
    const { token } = await issueToken(host, 'acme');
    const { status, body } = await uploadTo(host, 'env-echo', token, envEcho('published'));
    expect(status).toBe(409);
    expect(body.error?.code).toBe('ERR_PUBLISH_CONFLICT');
    expect(body.error?.message).toContain('--published-over-dir');
    expect(await host.stores.versions.list('env-echo')).toEqual([]);
    expect(host.integrations.find((entry) => entry.name === 'env-echo')?.published).toBeUndefined();
  });

  it('is served from the store instead with publishedOverDir, which the log says', async () => {
    const host = await startTestHost({
      dirs: ['test/fixtures/env-echo'],
      autoInstall: false,
      workers: 1,
      publishedOverDir: true,
    });
    hosts.push(host);
    const { token } = await issueToken(host, 'acme');
    const { status } = await uploadTo(host, 'env-echo', token, envEcho('published'));
    expect(status).toBe(201);
    expect(host.integrations.find((entry) => entry.name === 'env-echo')?.published?.version).toBe(1);
    expect(host.logs.join('\n')).toContain('publish: env-echo version 1 takes the place of its --dir folder');
    // The dev loop's reload leaves it to the store.
    await host.reload();
    expect(host.integrations.find((entry) => entry.name === 'env-echo')?.published?.version).toBe(1);
  });
});

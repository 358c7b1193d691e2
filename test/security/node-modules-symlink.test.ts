// A "package" in an integration's node_modules that is a symlink to a folder outside (here the
// host's own source): bare imports may resolve through node_modules, but only to files whose real
// path lies inside an allowed node_modules folder. The integration is listed invalid with the
// import and the link named, gets no bundle, and never runs; nothing of the host enters a bundle.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { lstatSync } from 'node:fs';
import { startTestHost, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';

const FIXTURE = 'fixtures/hostile/node-modules-symlink';
let host: TestHost;

beforeAll(async () => {
  host = await startTestHost({ dirs: ['fixtures/integrations', 'fixtures/hostile'] });
});
afterAll(() => host?.close());

describe('a node_modules package symlinked to a folder outside', () => {
  it('is staged as the attack says: the package folder is a symlink', () => {
    expect(lstatSync(`${FIXTURE}/node_modules/host-internals`).isSymbolicLink()).toBe(true);
  });

  it('makes the integration invalid, naming the import and the link, with no bundle and no worker', async () => {
    const listed = await (await host.admin('/v1/integrations/node-modules-symlink')).json();
    expect(listed.status).toBe('invalid');
    expect(listed.errors).toEqual([
      `${FIXTURE}/platform-manifest.yaml: /script: script imports "host-internals/config/dev-env.ts" (from ` +
        `index.ts), which resolves outside the integration folder and its node_modules (node_modules/host-internals ` +
        `is a symlink to a folder outside)`,
    ]);
    expect(
      host.integrations.find((integration) => integration.name === 'node-modules-symlink')?.bundle,
    ).toBeUndefined();
    expect(host.supervisor.workerOf('node-modules-symlink')).toBeUndefined();
  });

  it('leaves the host and its neighbour answering', async () => {
    await expectHostHealthy(host);
  });
});

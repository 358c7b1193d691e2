// Manifests whose files escape their folder: script and icon through `..` segments, script and
// icon as symlinks to files outside, and a script importing a file outside. Each is listed invalid
// with the offending path named, gets no bundle, and never runs: nothing outside the folder is
// read into a bundle or served.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestHost, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';

let host: TestHost;

beforeAll(async () => {
  host = await startTestHost({ dirs: ['fixtures/integrations', 'fixtures/hostile'] });
});
afterAll(() => host?.close());

async function errorsOf(name: string): Promise<string[]> {
  const listed = await (await host.admin(`/v1/integrations/${name}`)).json();
  expect(listed.status).toBe('invalid');
  expect(host.integrations.find((integration) => integration.name === name)?.bundle).toBeUndefined();
  expect(host.supervisor.workerOf(name)).toBeUndefined();
  return listed.errors;
}

describe('paths that escape the integration folder', () => {
  it('through .. segments', async () => {
    expect(await errorsOf('path-escape-dotdot')).toEqual([
      'fixtures/hostile/path-escape-dotdot/platform-manifest.yaml: /script: ' +
        '"../../integrations/hello/src/index.ts" leaves the integration folder',
      'fixtures/hostile/path-escape-dotdot/platform-manifest.yaml: /icon: "../../../package.json" leaves the ' +
        'integration folder',
    ]);
  });

  it('through symlinks', async () => {
    expect(await errorsOf('path-escape-symlink')).toEqual([
      'fixtures/hostile/path-escape-symlink/platform-manifest.yaml: /script: "index.ts" resolves outside the ' +
        'integration folder (through a symlink)',
      'fixtures/hostile/path-escape-symlink/platform-manifest.yaml: /icon: "icon.png" resolves outside the ' +
        'integration folder (through a symlink)',
    ]);
  });

  it('through an import', async () => {
    expect(await errorsOf('path-escape-import')).toEqual([
      'fixtures/hostile/path-escape-import/platform-manifest.yaml: /script: script imports ' +
        '"../../integrations/hello/src/index.ts" (from index.ts), which resolves outside the integration folder and ' +
        'its node_modules',
    ]);
  });

  it('leaves the host and its neighbour answering', async () => {
    await expectHostHealthy(host);
  });
});

// A script importing Node built-ins (node:fs statically, node:child_process dynamically, fs through
// require): the bundler refuses every one, so the integration is listed invalid with one error per
// import, has no bundle, and is never installed or run.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestHost, endpointOf, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';

let host: TestHost;

beforeAll(async () => {
  host = await startTestHost({ dirs: ['fixtures/integrations', 'fixtures/hostile'] });
});
afterAll(() => host?.close());

describe('a script importing node:fs', () => {
  it('is listed invalid with one error per Node built-in it imports', async () => {
    const listed = await (await host.admin('/v1/integrations/node-fs-import')).json();
    expect(listed.status).toBe('invalid');
    for (const specifier of ['node:fs', 'node:child_process', 'fs']) {
      expect(listed.errors).toContain(
        `fixtures/hostile/node-fs-import/platform-manifest.yaml: /script: script imports "${specifier}" (from ` +
          `index.ts): Node built-ins are not available in the sandbox`,
      );
    }
  });

  it('has no bundle and is never installed or run', () => {
    expect(host.integrations.find((integration) => integration.name === 'node-fs-import')?.bundle).toBeUndefined();
    expect(() => endpointOf(host, 'node-fs-import')).toThrow(/no dev installation/);
    expect(host.supervisor.workerOf('node-fs-import')).toBeUndefined();
  });

  it('leaves the host and its neighbour answering', async () => {
    await expectHostHealthy(host);
  });
});

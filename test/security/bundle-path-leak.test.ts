// An integration reading its own bundle's text to learn where the host is installed: esbuild
// writes a `// <path>` comment before each module, relative to the integration folder, so the
// text named the host's directories, and a sloppy wrapper function handed the whole text to
// `eval('arguments.callee')`. The markers are blanked and the wrapper has no `arguments`.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointOf, startTestHost, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url)).replace(/\/$/, '');
let host: TestHost;

beforeAll(async () => {
  host = await startTestHost({ dirs: ['fixtures/integrations', 'fixtures/hostile'] });
});
afterAll(() => host?.close());

describe('the bundle as seen from inside', () => {
  it('never shows a host path, a relative path out of the folder or a module marker', async () => {
    const texts: Record<string, string> = await (await fetch(endpointOf(host, 'bundle-path-leak'))).json();
    expect(Object.keys(texts)).toHaveLength(7);
    for (const [label, text] of Object.entries(texts)) {
      expect(text, label).not.toContain(REPO);
      expect(text, label).not.toMatch(/\/\/ \.\.\//);
      expect(text, label).not.toMatch(/sandbox-api\/(index|api-client|oauth)\.ts/);
    }
    // The top level of the bundle has no `arguments` to take the wrapper from.
    expect(texts['top-level arguments.callee']).toMatch(/^threw ReferenceError: arguments is not defined/);
  });

  it('leaves the host and its neighbour answering', async () => {
    await expectHostHealthy(host);
  });
});

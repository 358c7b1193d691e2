// A guest reaching for Node's module system at run time, in strings the bundler never sees: no
// `require`, `module` or `process`, and every dynamic import() (node:fs, node:child_process, a bare
// specifier, a data: URL, a path into the host's own sources) is refused by the isolate.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestHost, endpointOf, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';

let host: TestHost;
let report: Record<string, string>;

beforeAll(async () => {
  host = await startTestHost({ dirs: ['fixtures/integrations', 'fixtures/hostile'] });
  const response = await fetch(endpointOf(host, 'node-module-access'));
  expect(response.status).toBe(200);
  report = await response.json();
});
afterAll(() => host?.close());

describe('Node module access at run time', () => {
  it('finds no require, module or process', () => {
    expect(report.require).toBe('value:string:undefined');
    expect(report.module).toBe('value:string:undefined');
    expect(report.globalProcess).toBe('value:string:undefined');
    expect(report.requireCall).toBe('threw:ReferenceError:require is not defined');
    expect(report.processBinding).toBe('threw:ReferenceError:process is not defined');
  });

  it.each(['importNodeFs', 'importChildProcess', 'importBare', 'importDataUrl', 'importRelative', 'evalImport'])(
    'cannot %s',
    (attempt) => {
      expect(report[attempt]).toMatch(/^threw:/);
      expect(report[attempt]).not.toMatch(/imported/);
    },
  );

  it('leaves the host and its neighbour answering', async () => {
    await expectHostHealthy(host);
  });
});

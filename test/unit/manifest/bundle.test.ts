import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { bundleScript } from '../../../host/manifest/bundle.ts';
import { clearBundleMemoryCache } from '../../../host/manifest/bundle-cache.ts';
import { HostError } from '../../../host/common/errors.ts';
import { TempDirs } from './temp-integration.ts';
import { PROVIDED_MODULES } from '../../../sandbox-api/runtime/provided.ts';

const temp = new TempDirs();
afterAll(() => temp.cleanup());
const REPO = path.resolve(import.meta.dirname, '../../..');

async function bundleError(dir: string, script: string): Promise<HostError> {
  const error = await bundleScript(dir, script, { cacheDir: temp.make() }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(HostError);
  return error as HostError;
}

describe('bundleScript', () => {
  it(
    'produces a script whose completion value is a function of the provided modules returning the entry namespace, ' +
      'without creating a global',
    async () => {
      const dir = temp.make({
        'index.ts':
          'import { twice } from "./lib/math.ts";\nexport const answer: number = twice(21);\nexport default { ' +
          'fetch() { return "ok"; } };\n',
        'lib/math.ts': 'export const twice = (n: number) => n * 2;\n',
      });
      const { code } = await bundleScript(dir, 'index.ts', { cacheDir: temp.make() });
      const context: Record<string, unknown> = {};
      const namespace = vm.runInNewContext(code, context)(PROVIDED_MODULES) as {
        answer: number;
        default: { fetch(): string };
      };
      expect(namespace.answer).toBe(42);
      expect(namespace.default.fetch()).toBe('ok');
      expect(Object.keys(context)).toEqual([]);
    },
  );

  it('rejects node:fs, naming the import and the importing file', async () => {
    const error = await bundleError(path.join(REPO, 'fixtures/integrations-bad/imports-node-fs'), 'index.js');
    expect(error.code).toBe('ERR_BUNDLE_FAILED');
    expect(error.message).toBe(
      'script imports "node:fs" (from index.js): Node built-ins are not available in the sandbox',
    );
  });

  it('rejects an import that resolves outside the integration folder', async () => {
    const error = await bundleError(path.join(REPO, 'fixtures/integrations-bad/imports-outside'), 'index.ts');
    expect(error.message).toBe(
      'script imports "../../outside-the-folder.ts" (from index.ts), which resolves outside the integration ' +
        'folder and its node_modules',
    );
  });

  it('collects every offending import, across files, in one error', async () => {
    const dir = temp.make({
      'index.js': 'import "./inner/a.js";\nimport { join } from "path";\nexport default { join };\n',
      'inner/a.js': 'import "../../elsewhere.js";\nimport "fs/promises";\nimport "sandbox-api/../host/errors";\n',
    });
    const error = await bundleError(dir, 'index.js');
    expect(error.details?.map((d) => d.message)).toEqual([
      'script imports "path" (from index.js): Node built-ins are not available in the sandbox',
      'script imports "../../elsewhere.js" (from inner/a.js), which resolves outside the integration folder and ' +
        'its node_modules',
      'script imports "fs/promises" (from inner/a.js): Node built-ins are not available in the sandbox',
      'script imports "sandbox-api/../host/errors" (from inner/a.js): no such sandbox-api module',
    ]);
  });

  it('rejects a bare package found in a node_modules above the folder, and accepts its own', async () => {
    const parent = temp.make({ 'node_modules/outer-pkg/index.js': 'export const x = 1;\n' });
    const dir = path.join(parent, 'app');
    temp.write(
      dir,
      'index.js',
      'import { x } from "outer-pkg";\nimport { y } from "inner-pkg";\nexport default { x, y };\n',
    );
    temp.write(
      dir,
      'node_modules/inner-pkg/package.json',
      '{ "name": "inner-pkg", "module": "esm.js", "main": "cjs.js" }',
    );
    temp.write(dir, 'node_modules/inner-pkg/esm.js', 'export const y = "esm";\n');
    const error = await bundleError(dir, 'index.js');
    expect(error.details?.map((d) => d.message)).toEqual([
      'script imports "outer-pkg" (from index.js), which resolves outside the integration folder and its node_modules',
    ]);
    temp.write(dir, 'index.js', 'import { y } from "inner-pkg";\nexport default { y };\n');
    const { code } = await bundleScript(dir, 'index.js', { cacheDir: temp.make() });
    expect((vm.runInNewContext(code)(PROVIDED_MODULES) as { default: { y: string } }).default.y).toBe('esm');
  });

  it('rejects an inner symlink to a file outside the folder', async () => {
    const error = await bundleError(path.join(REPO, 'fixtures/integrations-bad/script-symlink-escape'), 'index.ts');
    expect(error.message).toBe('script "index.ts" resolves outside the integration folder');
  });

  it('reports syntax errors with their location', async () => {
    const error = await bundleError(temp.make({ 'index.ts': 'export default {\n' }), 'index.ts');
    expect(error.message).toMatch(/^index\.ts:2:1: /);
  });

  it("resolves sandbox-api/<sub> to the repo's sandbox-api folder", async () => {
    const dir = temp.make({
      'index.ts':
        'import * as contract from "sandbox-api/runtime/contract";\nexport const keys = Object.keys(contract);\n',
    });
    const { code } = await bundleScript(dir, 'index.ts', { cacheDir: temp.make() });
    const expected = Object.keys(await import('../../../sandbox-api/runtime/contract.ts')).sort();
    expect([...(vm.runInNewContext(code)(PROVIDED_MODULES) as { keys: string[] }).keys].sort()).toEqual(expected);
  });

  it.skipIf(!existsSync(path.join(REPO, 'sandbox-api/jsx-runtime.ts')))(
    'compiles TSX through the runtime-provided sandbox-api/jsx-runtime, not a bundled copy',
    async () => {
      const dir = temp.make({ 'index.tsx': 'export const view = () => <block />;\n' });
      const { code } = await bundleScript(dir, 'index.tsx', { cacheDir: temp.make() });
      // The JSX runtime's own function is not in the bundle: it is read from the provided module.
      expect(code).not.toMatch(/function jsx\(/);
      expect(code).toContain('__ih_provided["sandbox-api/jsx-runtime"]');
      const namespace = vm.runInNewContext(code)(PROVIDED_MODULES) as { view(): unknown };
      expect(namespace.view()).toEqual({ type: 'block' });
    },
  );
});

describe('bundleScript cache', () => {
  it('serves an unchanged script from the cache and rebuilds a changed one', async () => {
    const dir = temp.make({
      'index.js': 'import { v } from "./v.js";\nexport default { v };\n',
      'v.js': 'export const v = 1;\n',
    });
    const cacheDir = temp.make();
    const first = await bundleScript(dir, 'index.js', { cacheDir });
    expect(first.cached).toBe(false);

    const second = await bundleScript(dir, 'index.js', { cacheDir });
    expect(second).toEqual({ ...first, cached: true });

    clearBundleMemoryCache(); // as a restarted host would: only the disk cache is left
    const fromDisk = await bundleScript(dir, 'index.js', { cacheDir });
    expect(fromDisk).toEqual({ ...first, cached: true });
    expect(readdirSync(cacheDir).filter((f) => f.endsWith('.js'))).toEqual([`${first.hash}.js`]);

    writeFileSync(path.join(dir, 'v.js'), 'export const v = 2;\n'); // an imported file, not the entry
    const changed = await bundleScript(dir, 'index.js', { cacheDir });
    expect(changed.cached).toBe(false);
    expect(changed.hash).not.toBe(first.hash);
    expect((vm.runInNewContext(changed.code)(PROVIDED_MODULES) as { default: { v: number } }).default.v).toBe(2);
  });

  it('never serves a cached bundle whose input was removed', async () => {
    const dir = temp.make({ 'index.js': 'export { v } from "./v.js";\n', 'v.js': 'export const v = 1;\n' });
    const cacheDir = temp.make();
    await bundleScript(dir, 'index.js', { cacheDir });
    rmSync(path.join(dir, 'v.js'));
    await expect(bundleScript(dir, 'index.js', { cacheDir })).rejects.toThrow(
      'script imports "./v.js" (from index.js), which does not exist',
    );
  });
});

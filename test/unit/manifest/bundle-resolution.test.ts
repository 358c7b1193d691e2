// Bundling as GitBook's integrations need it: bare imports through the node_modules of the folder
// and its ancestors up to the workspace root (and no further), TypeScript source packages, MODE and
// process.env.NODE_ENV as constants, `.raw.js` and `with { type: 'text' }` as text, and a cache
// key that follows every input that decides the bundle.

import { afterAll, describe, expect, it } from 'vitest';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { bundleScript } from '../../../host/manifest/bundle.ts';
import { clearBundleMemoryCache } from '../../../host/manifest/bundle-cache.ts';
import { HostError } from '../../../host/common/errors.ts';
import { TempDirs } from './temp-integration.ts';
import { PROVIDED_MODULES } from '../../../sandbox-api/runtime/provided.ts';

const temp = new TempDirs();
afterAll(() => temp.cleanup());

/** A workspace: `<ws>/package.json`, `<ws>/integrations/app/index.ts`; --dir is `<ws>/integrations`. */
function workspace(files: Record<string, string>, withPackageJson = true): { ws: string; root: string; app: string } {
  const ws = temp.make(withPackageJson ? { 'package.json': '{ "private": true }\n', ...files } : files);
  return { ws, root: path.join(ws, 'integrations'), app: path.join(ws, 'integrations', 'app') };
}

function run(code: string): Record<string, unknown> {
  return (vm.runInNewContext(code)(PROVIDED_MODULES) as { default: Record<string, unknown> }).default;
}

async function failure(promise: Promise<unknown>): Promise<string[]> {
  const error = await promise.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(HostError);
  return ((error as HostError).details ?? []).map((detail) => detail.message);
}

describe('bare imports through node_modules', () => {
  it('resolve in the folder, the --dir root and the workspace root holding package.json', async () => {
    const { root, app } = workspace({
      'node_modules/hoisted/package.json': '{ "name": "hoisted", "main": "index.js" }',
      'node_modules/hoisted/index.js': 'export const where = "workspace root";\n',
      'integrations/node_modules/middle/index.js': 'export const where = "dir root";\n',
      'integrations/app/node_modules/own/index.js': 'export const where = "own";\n',
      'integrations/app/index.ts':
        'import * as a from "hoisted";\nimport * as b from "middle";\nimport * as c from "own";\nexport default { ' +
        'a: a.where, b: b.where, c: c.where };\n',
    });
    const { code } = await bundleScript(app, 'index.ts', { root, cacheDir: temp.make() });
    expect(run(code)).toEqual({ a: 'workspace root', b: 'dir root', c: 'own' });
  });

  it('stop at the workspace root: a package above it is refused, naming the import', async () => {
    const outer = temp.make({ 'node_modules/above/index.js': 'export const x = 1;\n' });
    const ws = path.join(outer, 'ws');
    temp.write(ws, 'package.json', '{}');
    temp.write(ws, 'integrations/app/index.ts', 'import { x } from "above";\nexport default { x };\n');
    const messages = await failure(
      bundleScript(path.join(ws, 'integrations/app'), 'index.ts', {
        root: path.join(ws, 'integrations'),
        cacheDir: temp.make(),
      }),
    );
    expect(messages).toEqual([
      'script imports "above" (from index.ts), which resolves outside the integration folder and its node_modules',
    ]);
  });

  it('without any package.json, stop at the --dir root', async () => {
    const { ws, root, app } = workspace(
      {
        'node_modules/above-root/index.js': 'export const x = 1;\n',
        'integrations/app/index.ts': 'import { x } from "above-root";\nexport default { x };\n',
      },
      false,
    );
    expect(ws).toBeTruthy();
    const messages = await failure(bundleScript(app, 'index.ts', { root, cacheDir: temp.make() }));
    expect(messages[0]).toMatch(/"above-root" .*resolves outside the integration folder and its node_modules/);
  });

  it('refuse a package whose folder is a symlink to outside the node_modules, naming the link', async () => {
    const outside = temp.make({ 'index.js': 'export const stolen = 1;\n' });
    const { ws, root, app } = workspace({
      'integrations/app/index.ts': 'import { stolen } from "evil";\nexport default { stolen };\n',
    });
    mkdirSync(path.join(ws, 'node_modules'));
    symlinkSync(outside, path.join(ws, 'node_modules', 'evil'));
    const messages = await failure(bundleScript(app, 'index.ts', { root, cacheDir: temp.make() }));
    expect(messages).toEqual([
      'script imports "evil" (from index.ts), which resolves outside the integration folder and its node_modules ' +
        '(../../node_modules/evil is a symlink to a folder outside)',
    ]);
  });

  it('let a package import its own files and other packages, but not reach out by a relative path', async () => {
    const { root, app } = workspace({
      'node_modules/a/index.js': 'export { b } from "b";\nexport { lib } from "./lib/x.js";\n',
      'node_modules/a/lib/x.js': 'export const lib = "lib";\n',
      'node_modules/b/index.js': 'export const b = "b";\n',
      'node_modules/sneaky/index.js': 'export { x } from "../../../escape.js";\n',
      'integrations/app/index.ts': 'import { b, lib } from "a";\nexport default { b, lib };\n',
    });
    expect(run((await bundleScript(app, 'index.ts', { root, cacheDir: temp.make() })).code)).toEqual({
      b: 'b',
      lib: 'lib',
    });
    temp.write(app, 'index.ts', 'import { x } from "sneaky";\nexport default { x };\n');
    const messages = await failure(bundleScript(app, 'index.ts', { root, cacheDir: temp.make() }));
    expect(messages).toEqual([
      'script imports "../../../escape.js" (from ../../node_modules/sneaky/index.js), which resolves outside the ' +
        'integration folder and its node_modules',
    ]);
  });

  it('still refuse Node built-ins imported from a package', async () => {
    const { root, app } = workspace({
      'node_modules/nodey/index.js': 'import { readFileSync } from "fs";\nexport const read = readFileSync;\n',
      'integrations/app/index.ts': 'import { read } from "nodey";\nexport default { read };\n',
    });
    const messages = await failure(bundleScript(app, 'index.ts', { root, cacheDir: temp.make() }));
    expect(messages).toEqual([
      'script imports "fs" (from ../../node_modules/nodey/index.js): Node built-ins are not available in the sandbox',
    ]);
  });

  it('compile a package shipped as TypeScript source and prefer the browser build of a package', async () => {
    const { root, app } = workspace({
      'node_modules/ts-src/package.json': '{ "name": "ts-src", "type": "module", "main": "src/index.ts" }',
      'node_modules/ts-src/src/index.ts':
        'import type { Nothing } from "./types";\nexport const typed: string = "compiled" satisfies Nothing;\n',
      'node_modules/ts-src/src/types.ts': 'export type Nothing = string;\n',
      'node_modules/dual/package.json': '{ "name": "dual", "main": "node.js", "browser": "browser.js" }',
      'node_modules/dual/node.js': 'import "http";\nexport const side = "node";\n',
      'node_modules/dual/browser.js': 'export const side = "browser";\n',
      'integrations/app/index.ts':
        'import { typed } from "ts-src";\nimport { side } from "dual";\nexport default { typed, side };\n',
    });
    expect(run((await bundleScript(app, 'index.ts', { root, cacheDir: temp.make() })).code)).toEqual({
      typed: 'compiled',
      side: 'browser',
    });
  });
});

describe('compile-time constants and text imports', () => {
  const source = 'export default { mode: MODE, env: process.env.NODE_ENV, processGlobal: typeof process };\n';

  it(
    'defines MODE and process.env.NODE_ENV (production by default, development on request), with no process ' +
      'object',
    async () => {
      const dir = temp.make({
        'index.ts': `declare const MODE: string; declare const process: { env: Record<string, string> };\n${source}`,
      });
      const production = await bundleScript(dir, 'index.ts', { cacheDir: temp.make() });
      expect(run(production.code)).toEqual({ mode: 'production', env: 'production', processGlobal: 'undefined' });
      const development = await bundleScript(dir, 'index.ts', { cacheDir: temp.make(), mode: 'development' });
      expect(run(development.code)).toEqual({ mode: 'development', env: 'development', processGlobal: 'undefined' });
      expect(development.hash).not.toBe(production.hash);
    },
  );

  it('imports *.raw.js and *.raw.css files and `with { type: "text" }` imports as strings, never as code', async () => {
    const dir = temp.make({
      'script.raw.js': 'window.analytics = "<KEY>"; throw new Error("must not run");\n',
      'style.raw.css': 'body { color: red }\n',
      'page.html': '<p>hello</p>\n',
      'index.ts':
        'import script from "./script.raw.js";\nimport style from "./style.raw.css";\nimport page from ' +
        '"./page.html" with { type: "text" };\nexport default { script, style, page };\n',
    });
    expect(run((await bundleScript(dir, 'index.ts', { cacheDir: temp.make() })).code)).toEqual({
      script: 'window.analytics = "<KEY>"; throw new Error("must not run");\n',
      style: 'body { color: red }\n',
      page: '<p>hello</p>\n',
    });
  });

  it('compiles JSX against the JSX source it is given', async () => {
    const { root, app } = workspace({
      'node_modules/my-jsx/package.json': '{ "name": "my-jsx", "exports": { "./jsx-runtime": "./jsx.js" } }',
      'node_modules/my-jsx/jsx.js':
        'export const jsx = (type, props) => ({ tag: type, ...props });\nexport const jsxs = jsx;\n',
      'integrations/app/index.tsx': 'export default { view: <block title="t" /> };\n',
    });
    const { code } = await bundleScript(app, 'index.tsx', { root, cacheDir: temp.make(), jsxImportSource: 'my-jsx' });
    expect(run(code)).toEqual({ view: { tag: 'block', title: 't' } });
  });
});

describe('the bundle cache follows node_modules', () => {
  it('rebuilds when a built package file, its package.json, or the set of installed packages changes', async () => {
    const { ws, root, app } = workspace({
      'node_modules/dep/package.json': '{ "name": "dep", "main": "a.js" }',
      'node_modules/dep/a.js': 'export const v = "a";\n',
      'node_modules/dep/b.js': 'export const v = "b";\n',
      'integrations/app/index.ts': 'import { v } from "dep";\nexport default { v };\n',
    });
    const cacheDir = temp.make();
    const build = () => bundleScript(app, 'index.ts', { root, cacheDir });
    const first = await build();
    expect((await build()).cached).toBe(true);

    writeFileSync(path.join(ws, 'node_modules/dep/a.js'), 'export const v = "a2";\n');
    const edited = await build();
    expect(edited.cached).toBe(false);
    expect(run(edited.code)).toEqual({ v: 'a2' });

    writeFileSync(path.join(ws, 'node_modules/dep/package.json'), '{ "name": "dep", "main": "b.js" }');
    const repointed = await build();
    expect(repointed.cached).toBe(false);
    expect(run(repointed.code)).toEqual({ v: 'b' });

    // A nearer copy shadows the hoisted one without touching any file the last build read.
    temp.write(app, 'node_modules/dep/index.js', 'export const v = "nearer";\n');
    clearBundleMemoryCache();
    const shadowed = await build();
    expect(shadowed.cached).toBe(false);
    expect(run(shadowed.code)).toEqual({ v: 'nearer' });
    rmSync(path.join(app, 'node_modules'), { recursive: true });
    expect(first.hash).not.toBe(shadowed.hash);
  });
});

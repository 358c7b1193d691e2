// buildRuntimeScript(): one esbuild bundle per process, shaped so its completion value is install.
import { describe, expect, it } from 'vitest';
import vm from 'node:vm';
import { buildRuntimeScript } from '../../../sandbox-api/runtime/build.ts';

describe('buildRuntimeScript', () => {
  it('is memoized per process', async () => {
    const [first, second] = await Promise.all([buildRuntimeScript(), buildRuntimeScript()]);
    expect(second).toBe(first);
    expect(buildRuntimeScript()).toBe(buildRuntimeScript());
  });

  it('evaluates to the install function without creating a global', async () => {
    const context = vm.createContext({});
    const before = vm.runInContext('Object.getOwnPropertyNames(globalThis).join()', context);
    const install = vm.runInContext(await buildRuntimeScript(), context);
    expect(typeof install).toBe('function');
    expect(install.name).toBe('install');
    expect(vm.runInContext('Object.getOwnPropertyNames(globalThis).join()', context)).toBe(before);
  });

  it('runs in strict mode', async () => {
    expect(await buildRuntimeScript()).toMatch(/^\(function \(\) \{\n"use strict";/);
  });

  it('contains nothing from Node or the host', async () => {
    const script = await buildRuntimeScript();
    expect(script).not.toMatch(/\brequire\(|from ['"]node:|process\.|isolated-vm/);
  });
});

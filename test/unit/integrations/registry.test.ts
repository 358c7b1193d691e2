// The registry keeps built-ins out of reach of loaded integrations: a folder that declares a
// built-in's name is listed beside it but never answers its name, never replaces it on a reload and
// never removes it; a name with no integration answers 404, pointing at the built-in of that own name.
import { describe, expect, it } from 'vitest';
import { builtinName, isBuiltinName } from '../../../host/integrations/builtin-names.ts';
import { createIntegrationRegistry } from '../../../host/integrations/registry.ts';
import type { LoadedIntegration } from '../../../host/manifest/types.ts';
import { checkSchema } from '../../../host/manifest/validate.ts';

const loaded = (name: string, status: LoadedIntegration['status'] = 'ready'): LoadedIntegration => ({
  name,
  dir: `/folders/${name}`,
  manifestPath: `/folders/${name}/platform-manifest.yaml`,
  status,
  secrets: {},
  errors: [],
  warnings: [],
});
const builtin = (name: string): LoadedIntegration => ({
  ...loaded(name),
  dir: '(built in)',
  builtin: { targets: ['space'], checkConfiguration: () => [], isComplete: () => true },
});

describe('built-in names', () => {
  it('are `host:<name>`, which no manifest name can be', () => {
    expect(builtinName('webhook')).toBe('host:webhook');
    expect(isBuiltinName('host:webhook')).toBe(true);
    expect(isBuiltinName('webhook')).toBe(false);
    const manifest = {
      name: builtinName('webhook'),
      title: 'T',
      description: 'd',
      organization: 'acme',
      visibility: 'public',
      scopes: [],
    };
    expect(checkSchema(manifest).map((issue) => issue.pointer)).toEqual(['/name']);
    expect(checkSchema({ ...manifest, name: 'webhook' })).toEqual([]);
  });
});

describe('the integration registry and built-ins', () => {
  it("answers a built-in's name with the built-in, whatever order they were loaded in", () => {
    for (const initial of [
      [loaded('host:webhook', 'invalid'), builtin('host:webhook')],
      [builtin('host:webhook'), loaded('host:webhook', 'invalid')],
    ]) {
      const registry = createIntegrationRegistry(initial);
      expect(registry.get('host:webhook')?.builtin).toBeDefined();
      expect(registry.list()).toHaveLength(2);
    }
  });

  it('never lets a loaded integration replace or remove a built-in', () => {
    const registry = createIntegrationRegistry([builtin('host:webhook'), loaded('host:webhook', 'invalid')]);
    expect(() => registry.set(loaded('host:webhook'))).toThrow(/cannot replace the built-in "host:webhook"/);
    registry.remove('host:webhook');
    expect(registry.get('host:webhook')?.builtin).toBeDefined();
    expect(registry.list().map((entry) => entry.dir)).toEqual(['(built in)']);
  });

  it("keeps an author's `webhook` and the built-in apart", () => {
    const registry = createIntegrationRegistry([loaded('webhook'), builtin('host:webhook')]);
    expect(registry.require('webhook').builtin).toBeUndefined();
    expect(registry.require('host:webhook').builtin).toBeDefined();
    registry.remove('webhook');
    expect(registry.get('webhook')).toBeUndefined();
    expect(registry.get('host:webhook')).toBeDefined();
  });

  it('answers an unknown name with 404, naming the built-in of that own name when there is one', () => {
    const registry = createIntegrationRegistry([builtin('host:webhook')]);
    expect(() => registry.require('webhook')).toThrow(
      'integration "webhook" not found; the host\'s built-in webhook integration is "host:webhook"',
    );
    expect(() => registry.require('slack')).toThrow(/^integration "slack" not found$/);
    expect(() => registry.require('host:slack')).toThrow(/^integration "host:slack" not found$/);
  });
});

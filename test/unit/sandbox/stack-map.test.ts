// Stack traces in the author's terms: a bundle's source map names its sources relative to the
// integration folder (sandbox-api and node_modules by label, never a host path), and the worker's
// mapper turns `integration:<name>:L:C` into `src/file.ts:L:C` through it.
import path from 'node:path';
import vm from 'node:vm';
import { afterAll, describe, expect, it } from 'vitest';
import { bundleScript } from '../../../host/manifest/bundle.ts';
import { sourceLabel } from '../../../host/manifest/source-map.ts';
import { createStackMapper, guestStack, scriptFilename } from '../../../host/sandbox/stack-map.ts';
import { TempDirs } from '../manifest/temp-integration.ts';
import { PROVIDED_MODULES } from '../../../sandbox-api/runtime/provided.ts';

const temp = new TempDirs();
afterAll(() => temp.cleanup());
const REPO = path.resolve(import.meta.dirname, '../../..');

const SCRIPT = `import { createIntegration } from 'sandbox-api';
import { explode } from './lib/explode.ts';

export { explode };
export default createIntegration({
  async fetch() {
    return explode('now');
  },
});
`;
const LIB = `export function explode(when: string): never {
  const message: string = 'exploded ' + when;
  throw new RangeError(message);
}
`;

describe('bundle source maps', () => {
  it('name sources relative to the integration folder and label sandbox-api, without host paths', async () => {
    const dir = temp.make({ 'src/index.ts': SCRIPT, 'src/lib/explode.ts': LIB });
    const bundle = await bundleScript(dir, 'src/index.ts', { cacheDir: temp.make() });
    const map = JSON.parse(bundle.map!) as { sources: string[] };
    expect(map.sources).toContain('src/index.ts');
    expect(map.sources).toContain('src/lib/explode.ts');
    // sandbox-api is provided by the runtime: the bundle holds only its stub, named by the specifier.
    expect(map.sources).toContain('sandbox-api');
    expect(map.sources).not.toContain('sandbox-api/index.ts');
    for (const source of map.sources) {
      expect(source.startsWith('/')).toBe(false);
      expect(source).not.toContain('..');
      expect(source).not.toContain(REPO);
    }
    expect(bundle.map).not.toContain(dir);
    expect(bundle.map).not.toContain('sourcesContent');
  });

  it('labels files outside the folder by package or base name', () => {
    expect(
      sourceLabel(
        '/home/me/app/node_modules/@scope/pkg/dist/index.js',
        '/home/me/app/integrations/x',
        '/repo/sandbox-api',
      ),
    ).toBe('node_modules/@scope/pkg/dist/index.js');
    expect(sourceLabel('/repo/sandbox-api/runtime/url.ts', '/home/me/x', '/repo/sandbox-api')).toBe(
      'sandbox-api/runtime/url.ts',
    );
    expect(sourceLabel('/somewhere/else/secret-name.ts', '/home/me/x', '/repo/sandbox-api')).toBe(
      'external/secret-name.ts',
    );
  });
});

describe('createStackMapper', () => {
  it('maps a thrown error to the line and column of the throw in the author’s file', async () => {
    const dir = temp.make({ 'src/index.ts': SCRIPT, 'src/lib/explode.ts': LIB });
    const bundle = await bundleScript(dir, 'src/index.ts', { cacheDir: temp.make() });
    // Run the bundle under the isolate's file name and call the exported helper.
    const namespace = vm.runInNewContext(bundle.code, {}, { filename: scriptFilename('boom') })(PROVIDED_MODULES) as {
      explode(when: string): never;
    };
    let stack = '';
    try {
      namespace.explode('now');
    } catch (error) {
      stack = (error as Error).stack!;
    }
    expect(stack).toMatch(/integration:boom:\d+:\d+/);
    const mapped = createStackMapper('boom', bundle.map)(stack);
    expect(mapped.split('\n').slice(0, 2)).toEqual([
      'RangeError: exploded now',
      '    at Object.explode (src/lib/explode.ts:3:9)',
    ]);
    expect(mapped).not.toMatch(/integration:boom/);
  });

  it('leaves other integrations’ positions and text without a map unchanged', () => {
    const map = JSON.stringify({ version: 3, sources: ['src/index.ts'], names: [], mappings: 'AAAA' });
    expect(createStackMapper('mine', map)('at integration:other:1:1')).toBe('at integration:other:1:1');
    expect(createStackMapper('mine', undefined)('at integration:mine:1:1')).toBe('at integration:mine:1:1');
    expect(createStackMapper('mine', '{not json')('at integration:mine:1:1')).toBe('at integration:mine:1:1');
  });
});

describe('guestStack', () => {
  it('keeps the header and guest frames, never the worker’s frames after the boundary', () => {
    const stack =
      'TypeError: bad\n    at integration:x:3:20\n    at (<isolated-vm boundary>)\n    at create ' +
      '(file:///work/host/sandbox/isolate.ts:336:39)\n    at /abs/path.js:1:1';
    expect(guestStack(stack)).toBe('TypeError: bad\n    at integration:x:3:20');
  });
});

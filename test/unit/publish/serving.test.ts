// A host serving published versions without notifications (SQLite): the revision poll finds a new
// current version and swaps it into the registry and the sandbox together; a version that does not
// load on this host (a secret missing here) leaves the previous one serving, saying why; a name a
// --dir folder serves stays the folder's; stopping removes the versions' folders, and a start those
// a killed host left.
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../../../host/common/logger.ts';
import { createIntegrationRegistry } from '../../../host/integrations/registry.ts';
import type { LoadedIntegration } from '../../../host/manifest/types.ts';
import { contentHash, packArchive } from '../../../host/publish/archive-files.ts';
import { createPublishedServing, type PublishedServing } from '../../../host/publish/serving.ts';
import { openSqliteStores } from '../../../host/store/sqlite/open.ts';
import type { HostStores } from '../../../host/store/types.ts';
import { integrationFiles, type TarEntry } from '../../helpers/archives.ts';
import { waitFor } from '../../helpers/host.ts';

let stores: HostStores;
let serving: PublishedServing | undefined;

afterEach(async () => {
  await serving?.stop();
  await stores?.close();
});

async function add(entries: TarEntry[], bundleHash: string): Promise<void> {
  const files = entries.map((entry) => ({ path: entry.name, bytes: Buffer.from(entry.body ?? '') }));
  await stores.versions.add(
    {
      integration: /name: (\S+)/.exec(String(entries[0].body))![1],
      organization: 'acme',
      contentHash: contentHash(files),
      bundleHash,
      files: files.length,
      bytes: 1,
      publishedBy: 'admin',
      publishedAt: new Date().toISOString(),
      archive: await packArchive(files),
      bundle: `(() => ({ default: ${JSON.stringify(bundleHash)} }))`,
      sourceMap: null,
    },
    new Date().toISOString(),
  );
}

function setUp(initial: LoadedIntegration[] = []) {
  stores = openSqliteStores(':memory:');
  const registry = createIntegrationRegistry(initial);
  const registered: [string, string][] = [];
  const logger = createMemoryLogger();
  serving = createPublishedServing({
    versions: stores.versions,
    registry,
    sandbox: { register: (name, bundle) => registered.push([name, bundle.hash]) },
    loadOptions: { env: {} },
    publishedOverDir: false,
    pollMs: 50,
    log: logger,
  });
  return { registry, registered, lines: logger.lines };
}

describe('serving published versions', () => {
  it('finds a new current version by polling and swaps registry and sandbox together', async () => {
    const { registry, registered } = setUp();
    await serving!.start();
    expect(registry.get('greeter')).toBeUndefined();
    await add(integrationFiles('greeter', 'acme', 'one'), 'bundle-1');
    await waitFor(() => registry.get('greeter')?.published?.version === 1, 10_000);
    expect(registry.get('greeter')).toMatchObject({ status: 'ready', bundle: { hash: 'bundle-1' } });
    expect(registered).toEqual([['greeter', 'bundle-1']]);
    await add(integrationFiles('greeter', 'acme', 'two'), 'bundle-2');
    await waitFor(() => registry.get('greeter')?.published?.version === 2, 10_000);
    expect(registered).toEqual([
      ['greeter', 'bundle-1'],
      ['greeter', 'bundle-2'],
    ]);
  });

  it('keeps the previous version serving when the new one does not load on this host', async () => {
    const { registry, registered, lines } = setUp();
    await add(integrationFiles('greeter', 'acme', 'one'), 'bundle-1');
    await serving!.start();
    expect(registry.get('greeter')?.published?.version).toBe(1);
    const [manifest, script] = integrationFiles('greeter');
    await add(
      [{ ...manifest, body: `${manifest.body}secrets:\n  key: \${{ env.GREETER_KEY }}\n` }, script],
      'bundle-2',
    );
    await waitFor(() => lines.some((line) => line.includes('version 2 of greeter does not load on this host')), 10_000);
    expect(lines.join('\n')).toContain('GREETER_KEY');
    expect(lines.join('\n')).toContain('version 1 keeps serving');
    expect(registry.get('greeter')?.published?.version).toBe(1);
    expect(registered).toEqual([['greeter', 'bundle-1']]);
  });

  it('removes at start the version folders a killed host left behind, never a live one', async () => {
    const dead = path.join(tmpdir(), 'ih-published-2147483646-left');
    const live = path.join(tmpdir(), `ih-published-${process.ppid}-live`);
    mkdirSync(dead, { recursive: true });
    mkdirSync(live, { recursive: true });
    setUp();
    await serving!.start();
    expect(existsSync(dead)).toBe(false);
    expect(existsSync(live)).toBe(true);
    rmSync(live, { recursive: true });
  });

  it('leaves a name a --dir folder serves to the folder, saying so once, and removes its folders at stop', async () => {
    const folder: LoadedIntegration = {
      name: 'greeter',
      dir: '/nowhere',
      manifestPath: '/nowhere/platform-manifest.yaml',
      status: 'ready',
      secrets: {},
      errors: [],
      warnings: [],
    };
    const { registry, lines } = setUp([folder]);
    await add(integrationFiles('greeter', 'acme', 'one'), 'bundle-1');
    await serving!.start();
    await serving!.refresh();
    expect(registry.get('greeter')).toBe(folder);
    expect(lines.filter((line) => line.includes('is served from its --dir folder'))).toHaveLength(1);
    await add(integrationFiles('other', 'acme', 'one'), 'bundle-o');
    await serving!.refresh();
    const dir = registry.get('other')!.dir;
    expect(existsSync(dir)).toBe(true);
    await serving!.stop();
    serving = undefined;
    expect(existsSync(dir)).toBe(false);
  });
});

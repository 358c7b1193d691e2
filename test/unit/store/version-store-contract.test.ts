// The published-versions contract on SQLite and PostgreSQL alike: versions are numbered per name
// and made current as they are added, a name stays with the organization that first published it,
// a rollback moves only the current pointer and the revision, rows are immutable, a second opener
// sees every change, and on the shared store another host is told which integration changed.
// Publisher tokens: stored by id with their hash, listed, revoked once.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NewVersion } from '../../../host/publish/model.ts';
import type { HostStores } from '../../../host/store/types.ts';
import { waitFor } from '../../helpers/host.ts';
import { useBackends, type Database } from './backends.ts';

let database: Database;
let stores: HostStores;

const version = (integration: string, organization = 'acme', content = 'c1'): NewVersion => ({
  integration,
  organization,
  contentHash: `hash-${content}`,
  bundleHash: `bundle-${content}`,
  files: 2,
  bytes: 300,
  publishedBy: 'publisher:pub_0123456789abcdef',
  publishedAt: '2026-12-01T10:00:00.000Z',
  archive: new Uint8Array([1, 2, 3, 0, 255]),
  bundle: `(() => ${JSON.stringify(content)})`,
  sourceMap: '{"version":3}',
});

describe.each(useBackends())('published versions on $name', (backend) => {
  beforeEach(async (context) => {
    if (backend.skip !== undefined) return context.skip(backend.skip);
    database = await backend.fresh();
    stores = await database.open();
  });
  afterEach(async () => {
    await database?.close();
  });

  it('numbers versions per name, makes each current as it is added, and keeps every byte', async () => {
    const first = await stores.versions.add(version('greeter'), '2026-12-01T10:00:01.000Z');
    expect(first).toMatchObject({ integration: 'greeter', version: 1, current: true, contentHash: 'hash-c1' });
    expect((await stores.versions.add(version('other'), 'now')).version).toBe(1);
    expect((await stores.versions.add(version('greeter', 'acme', 'c2'), 'now')).version).toBe(2);
    expect((await stores.versions.list('greeter')).map((entry) => [entry.version, entry.current])).toEqual([
      [2, true],
      [1, false],
    ]);
    expect(await stores.versions.currents()).toEqual([
      { integration: 'greeter', version: 2 },
      { integration: 'other', version: 1 },
    ]);
    const stored = await stores.versions.get('greeter', 1);
    expect(stored).toMatchObject({ bundle: '(() => "c1")', sourceMap: '{"version":3}', files: 2, bytes: 300 });
    expect([...stored!.archive]).toEqual([1, 2, 3, 0, 255]);
    expect(await stores.versions.get('greeter', 3)).toBeUndefined();
    expect(await stores.versions.list('nobody')).toEqual([]);
  });

  it('keeps a name with the organization that first published it', async () => {
    await stores.versions.add(version('greeter', 'acme'), 'now');
    await expect(stores.versions.add(version('greeter', 'globex', 'c2'), 'now')).rejects.toMatchObject({
      code: 'ERR_PUBLISHER_FORBIDDEN',
      message: expect.stringContaining('"greeter" belongs to organization "acme"'),
    });
    expect((await stores.versions.list('greeter')).length).toBe(1);
  });

  it('rolls back by moving the current version and the revision, never an unknown version', async () => {
    await stores.versions.add(version('greeter'), 'now');
    await stores.versions.add(version('greeter', 'acme', 'c2'), 'now');
    const before = await stores.versions.revision();
    expect(await stores.versions.setCurrent('greeter', 1, 'admin', 'later')).toBe(true);
    expect(await stores.versions.revision()).toBeGreaterThan(before);
    expect(await stores.versions.currents()).toEqual([{ integration: 'greeter', version: 1 }]);
    const moved = await stores.versions.revision();
    expect(await stores.versions.setCurrent('greeter', 9, 'admin', 'later')).toBe(false);
    expect(await stores.versions.setCurrent('nobody', 1, 'admin', 'later')).toBe(false);
    expect(await stores.versions.revision()).toBe(moved);
  });

  it('refuses to change a stored version', async () => {
    await stores.versions.add(version('greeter'), 'now');
    await expect(database.rows("UPDATE integration_versions SET bundle = 'evil'")).rejects.toThrow(/immutable/);
    expect((await stores.versions.get('greeter', 1))!.bundle).toBe('(() => "c1")');
  });

  it('shows a second opener every change, and tells another host which integration changed', async () => {
    const other = await database.open();
    await stores.versions.add(version('greeter'), 'now');
    expect(await other.versions.currents()).toEqual([{ integration: 'greeter', version: 1 }]);
    expect(await other.versions.revision()).toBe(await stores.versions.revision());
    if (other.versions.subscribe === undefined) {
      expect(stores.shared).toBe(false);
      return;
    }
    const heard: string[] = [];
    const stop = other.versions.subscribe((integration) => heard.push(integration));
    await stores.versions.add(version('greeter', 'acme', 'c2'), 'now');
    await waitFor(() => heard.includes('greeter'), 5_000);
    stop();
  });

  it('stores publishers by id with their hash, lists them oldest first, and revokes once', async () => {
    const record = (id: string, createdAt: string) => ({
      id,
      organization: 'acme',
      label: `ci ${id}`,
      tokenHash: 'ab'.repeat(32),
      createdAt,
      revokedAt: null,
    });
    await stores.publishers.add(record('pub_b', '2026-12-01T10:00:02.000Z'));
    await stores.publishers.add(record('pub_a', '2026-12-01T10:00:01.000Z'));
    expect((await stores.publishers.list()).map((entry) => entry.id)).toEqual(['pub_a', 'pub_b']);
    expect(await stores.publishers.find('pub_b')).toEqual(record('pub_b', '2026-12-01T10:00:02.000Z'));
    expect(await stores.publishers.find('__proto__')).toBeUndefined();
    expect(await stores.publishers.revoke('pub_b', '2026-12-02T00:00:00.000Z')).toBe(true);
    expect(await stores.publishers.revoke('pub_b', '2026-12-03T00:00:00.000Z')).toBe(false);
    expect(await stores.publishers.revoke('pub_none', 'now')).toBe(false);
    expect((await stores.publishers.find('pub_b'))!.revokedAt).toBe('2026-12-02T00:00:00.000Z');
  });
});

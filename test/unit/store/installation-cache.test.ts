// The installation cache in front of every store: frozen records served from memory, replaced on
// each write; a read racing a write never puts the old record back; misses are never remembered;
// invalidate() and a disabled cache make the next read go to the store. A whole list read fills
// the records as well, under the same rule.
import { describe, expect, it } from 'vitest';
import type { Installation, InstallationStore } from '../../../host/installations/model.ts';
import { withInstallationCache } from '../../../host/store/installation-cache.ts';

const record = (id: string, configuration: Record<string, unknown> = {}): Installation => ({
  id,
  integration: 'hello',
  organization: 'acme',
  target: 'organization',
  status: 'active',
  configuration,
  createdAt: '2026-01-01T00:00:00Z',
});

/** A store over a Map that counts reads and can hold a read until released. */
function fakeStore() {
  const rows = new Map<string, Installation>();
  const tokens = new Map<string, string>();
  const reads = { installation: 0, token: 0 };
  let hold: Promise<void> | null = null;
  const store: InstallationStore = {
    async insertInstallation(installation, tokenHash) {
      rows.set(installation.id, structuredClone(installation));
      tokens.set(tokenHash, installation.id);
    },
    async getInstallation(id) {
      reads.installation++;
      const found = rows.get(id);
      const copy = found === undefined ? undefined : structuredClone(found);
      if (hold) await hold;
      return copy;
    },
    async insertChildInstallation(child, childTokenHash, parent, parentTokenHash) {
      rows.set(parent.id, structuredClone(parent));
      tokens.set(parentTokenHash, parent.id);
      rows.set(child.id, { ...structuredClone(child), parent: parent.id });
      tokens.set(childTokenHash, child.id);
      return { child: structuredClone(rows.get(child.id)!), parent: structuredClone(parent), parentCreated: true };
    },
    async adoptChildInstallation() {
      throw new Error('not used by these tests');
    },
    async listInstallations() {
      const copies = [...rows.values()].map((row) => structuredClone(row));
      if (hold) await hold;
      return copies;
    },
    async editInstallation(id, plan) {
      const before = rows.get(id);
      if (before === undefined) return undefined;
      const after = { ...before, ...plan(structuredClone(before)) };
      rows.set(id, after);
      return { before: structuredClone(before), after: structuredClone(after) };
    },
    async findTokenOwner(hash) {
      reads.token++;
      return tokens.get(hash);
    },
    async deleteInstallation(id) {
      const before = rows.get(id);
      rows.delete(id);
      for (const [childId, row] of rows) if (row.parent === id) rows.delete(childId);
      for (const [hash, owner] of tokens) if (owner === id) tokens.delete(hash);
      return before;
    },
  };
  return {
    store,
    rows,
    reads,
    holdReads: () => {
      let release = () => {};
      hold = new Promise<void>((resolve) => (release = resolve));
      return () => ((hold = null), release());
    },
  };
}

describe('installation cache', () => {
  it('serves a frozen record from memory until the store writes it again', async () => {
    const { store, reads } = fakeStore();
    const cached = withInstallationCache(store);
    await cached.insertInstallation(record('inst_1', { a: 1 }), 'hash_1');
    const first = await cached.getInstallation('inst_1');
    expect(await cached.getInstallation('inst_1')).toBe(first);
    expect(reads.installation).toBe(1);
    expect(Object.isFrozen(first) && Object.isFrozen(first!.configuration)).toBe(true);
    await cached.editInstallation('inst_1', (current) => ({ status: current.status, configuration: { a: 2 } }));
    expect((await cached.getInstallation('inst_1'))?.configuration).toEqual({ a: 2 });
  });

  it('never puts back a record read before a write that finished meanwhile', async () => {
    const { store, holdReads } = fakeStore();
    const cached = withInstallationCache(store);
    await cached.insertInstallation(record('inst_1', { a: 1 }), 'hash_1');
    const release = holdReads();
    const stale = cached.getInstallation('inst_1');
    await cached.editInstallation('inst_1', (current) => ({ status: current.status, configuration: { a: 2 } }));
    release();
    expect((await stale)?.configuration).toEqual({ a: 1 });
    expect((await cached.getInstallation('inst_1'))?.configuration).toEqual({ a: 2 });
  });

  it('stores nothing when the plan refuses the edit', async () => {
    const { store } = fakeStore();
    const cached = withInstallationCache(store);
    await cached.insertInstallation(record('inst_1', { a: 1 }), 'hash_1');
    await expect(
      cached.editInstallation('inst_1', () => {
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect((await cached.getInstallation('inst_1'))?.configuration).toEqual({ a: 1 });
  });

  it('forgets a deleted installation and its token owner', async () => {
    const { store, reads } = fakeStore();
    const cached = withInstallationCache(store);
    await cached.insertInstallation(record('inst_1'), 'hash_1');
    expect(await cached.findTokenOwner('hash_1')).toBe('inst_1');
    expect(await cached.findTokenOwner('hash_1')).toBe('inst_1');
    expect(reads.token).toBe(1);
    expect(await cached.deleteInstallation('inst_1')).toMatchObject({ id: 'inst_1' });
    expect(await cached.findTokenOwner('hash_1')).toBeUndefined();
    expect(await cached.getInstallation('inst_1')).toBeUndefined();
  });

  it('serves installation lists from memory until any installation is written', async () => {
    const { store, rows } = fakeStore();
    const cached = withInstallationCache(store);
    await cached.insertInstallation(record('inst_1'), 'hash_1');
    expect((await cached.listInstallations({ integration: 'hello' })).map((row) => row.id)).toEqual(['inst_1']);
    rows.set('inst_elsewhere', record('inst_elsewhere'));
    expect((await cached.listInstallations({ integration: 'hello' })).map((row) => row.id)).toEqual(['inst_1']);
    cached.invalidate('inst_elsewhere');
    expect((await cached.listInstallations({ integration: 'hello' })).map((row) => row.id)).toEqual([
      'inst_1',
      'inst_elsewhere',
    ]);
    await cached.deleteInstallation('inst_1');
    expect((await cached.listInstallations()).map((row) => row.id)).toEqual(['inst_elsewhere']);
  });

  it('serves each record of a whole list it read without reading that record again', async () => {
    const { store, rows, reads } = fakeStore();
    const cached = withInstallationCache(store);
    rows.set('inst_1', record('inst_1', { a: 1 }));
    rows.set('inst_2', record('inst_2', { a: 2 }));
    const listed = await cached.listInstallations();
    expect(await cached.getInstallation('inst_1')).toBe(listed.find((row) => row.id === 'inst_1'));
    expect((await cached.getInstallation('inst_2'))?.configuration).toEqual({ a: 2 });
    expect(reads.installation).toBe(0);
  });

  it('never fills records from a list read before a write that finished meanwhile', async () => {
    const { store, rows, holdReads } = fakeStore();
    const cached = withInstallationCache(store);
    rows.set('inst_1', record('inst_1', { a: 1 }));
    const release = holdReads();
    const stale = cached.listInstallations();
    await cached.editInstallation('inst_1', (current) => ({ status: current.status, configuration: { a: 2 } }));
    release();
    expect((await stale)[0]?.configuration).toEqual({ a: 1 });
    expect((await cached.getInstallation('inst_1'))?.configuration).toEqual({ a: 2 });
  });

  it('forgets the cached space installations of a deleted organization installation', async () => {
    const { store } = fakeStore();
    const cached = withInstallationCache(store);
    const child: Installation = { ...record('inst_child'), target: 'space', space: 'space_1' };
    await cached.insertChildInstallation(child, 'hash_child', record('inst_parent'), 'hash_parent');
    expect((await cached.getInstallation('inst_child'))?.parent).toBe('inst_parent');
    await cached.deleteInstallation('inst_parent');
    expect(await cached.getInstallation('inst_child')).toBeUndefined();
  });

  it('never remembers a miss', async () => {
    const { store, reads } = fakeStore();
    const cached = withInstallationCache(store);
    expect(await cached.findTokenOwner('hash_later')).toBeUndefined();
    await store.insertInstallation(record('inst_later'), 'hash_later');
    expect(await cached.findTokenOwner('hash_later')).toBe('inst_later');
    expect(reads.token).toBe(2);
  });

  it('reads through after invalidate() (a write by another host) and while disabled', async () => {
    const { store, rows, reads } = fakeStore();
    const cached = withInstallationCache(store);
    await cached.insertInstallation(record('inst_1', { a: 1 }), 'hash_1');
    await cached.getInstallation('inst_1');
    rows.set('inst_1', record('inst_1', { a: 'elsewhere' }));
    expect((await cached.getInstallation('inst_1'))?.configuration).toEqual({ a: 1 });
    cached.invalidate('inst_1');
    expect((await cached.getInstallation('inst_1'))?.configuration).toEqual({ a: 'elsewhere' });
    cached.setEnabled(false);
    const before = reads.installation;
    await cached.getInstallation('inst_1');
    await cached.getInstallation('inst_1');
    expect(reads.installation).toBe(before + 2);
  });
});

// An in-memory cache in front of any InstallationStore: installation records (deep-frozen, replaced
// on write), token owners and installation lists, because the public endpoint, dispatch and the
// platform API read records on every request and publishing an event lists installations; a whole
// list read fills the records too. Invalidated by this store's own writes, and by invalidate() for writes another
// host made (the PostgreSQL store calls it on a notification). It never caches a miss, so a token
// or id that does not exist yet is never remembered as absent.

import type { Installation, InstallationStore } from '../installations/model.ts';

export interface CachedInstallationStore extends InstallationStore {
  /** Forgets what is known about one installation (its record and its tokens). */
  invalidate(id: string): void;
  /** Forgets everything (the invalidation channel was interrupted). */
  clear(): void;
  /** While false, every read goes to the store (no invalidation channel is live); default true. */
  setEnabled(enabled: boolean): void;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

export function withInstallationCache(inner: InstallationStore): CachedInstallationStore {
  const records = new Map<string, Installation>();
  const owners = new Map<string, string>();
  // Keyed by the filter (one integration, or all); any write may change any list, so any
  // invalidation drops them all.
  const lists = new Map<string, Installation[]>();
  // A read that started before a write must not put the old record back: every invalidation bumps
  // the generation, and a read only fills the cache if the generation did not move meanwhile.
  let generation = 0;
  let enabled = true;

  const invalidate = (id: string): void => {
    generation++;
    records.delete(id);
    lists.clear();
    for (const [hash, owner] of owners) if (owner === id) owners.delete(hash);
  };
  /** A removed organization installation took its space and site installations with it. */
  const invalidateChildren = (parentId: string): void => {
    generation++;
    for (const [id, record] of records) if (record.parent === parentId) invalidate(id);
  };
  const clear = (): void => {
    generation++;
    records.clear();
    owners.clear();
    lists.clear();
  };

  return {
    invalidate,
    clear,
    setEnabled(value) {
      enabled = value;
      clear();
    },
    async insertInstallation(installation, tokenHash, owed) {
      invalidate(installation.id);
      try {
        await inner.insertInstallation(installation, tokenHash, owed);
      } finally {
        invalidate(installation.id);
      }
    },
    async insertChildInstallation(child, childTokenHash, candidateParent, parentTokenHash, owe) {
      invalidate(child.id);
      invalidate(candidateParent.id);
      try {
        const placed = await inner.insertChildInstallation(
          child,
          childTokenHash,
          candidateParent,
          parentTokenHash,
          owe,
        );
        return {
          child: deepFreeze(placed.child),
          parent: deepFreeze(placed.parent),
          parentCreated: placed.parentCreated,
        };
      } finally {
        invalidate(child.id);
        invalidate(candidateParent.id);
      }
    },
    async adoptChildInstallation(childId, candidateParent, parentTokenHash) {
      invalidate(childId);
      invalidate(candidateParent.id);
      try {
        const placed = await inner.adoptChildInstallation(childId, candidateParent, parentTokenHash);
        return placed === undefined
          ? undefined
          : { child: deepFreeze(placed.child), parent: deepFreeze(placed.parent), parentCreated: placed.parentCreated };
      } finally {
        invalidate(childId);
        invalidate(candidateParent.id);
      }
    },
    async getInstallation(id) {
      const cached = enabled ? records.get(id) : undefined;
      if (cached !== undefined) return cached;
      const started = generation;
      const found = await inner.getInstallation(id);
      if (found === undefined) return undefined;
      const frozen = deepFreeze(found);
      if (enabled && generation === started) records.set(id, frozen);
      return frozen;
    },
    async listInstallations(filter) {
      // Only whole lists (all, one integration's, the children of one organization installation:
      // what event fan-out and authorization read) are cached; a page or another filter
      // (GET /v1/installations) goes to the store, never to a cached whole list.
      const cacheable =
        filter === undefined ||
        Object.entries(filter).every(
          ([field, value]) => field === 'integration' || field === 'parent' || value === undefined,
        );
      if (!cacheable) return (await inner.listInstallations(filter)).map(deepFreeze);
      const key = `integration:${filter?.integration ?? '*'} parent:${filter?.parent ?? '*'}`;
      const cached = enabled ? lists.get(key) : undefined;
      if (cached !== undefined) return [...cached];
      const started = generation;
      const list = (await inner.listInstallations(filter)).map(deepFreeze);
      if (enabled && generation === started) {
        lists.set(key, list);
        // Each listed record is as fresh as one read alone: a later read of it (an installation's
        // first request after a restart, once the host listed them all) is served from here too.
        for (const installation of list) if (!records.has(installation.id)) records.set(installation.id, installation);
      }
      return [...list];
    },
    async editInstallation(id, plan, owe) {
      invalidate(id);
      try {
        const edit = await inner.editInstallation(id, plan, owe);
        return edit === undefined ? undefined : { before: deepFreeze(edit.before), after: deepFreeze(edit.after) };
      } finally {
        invalidate(id);
      }
    },
    async findTokenOwner(tokenHash) {
      const cached = enabled ? owners.get(tokenHash) : undefined;
      if (cached !== undefined) return cached;
      const started = generation;
      const owner = await inner.findTokenOwner(tokenHash);
      if (owner !== undefined && enabled && generation === started) owners.set(tokenHash, owner);
      return owner;
    },
    async deleteInstallation(id) {
      invalidate(id);
      invalidateChildren(id);
      try {
        const removed = await inner.deleteInstallation(id);
        return removed === undefined ? undefined : deepFreeze(removed);
      } finally {
        invalidate(id);
        invalidateChildren(id);
      }
    },
  };
}

// Remembers "no delivery outside these busy endpoints is due before T", so the dispatcher does not
// rescan a large backlog queued for a saturated receiver after every attempt (O(n²) otherwise).
// Pure bookkeeping: the dispatcher tells it about every write that adds or reschedules a row.

export interface DueCache {
  /** The earliest due time outside `busy` if known (null: none pending), else undefined. */
  lookup(busy: readonly string[]): { dueAt: number | null } | undefined;
  remember(busy: readonly string[], dueAt: number | null): void;
  /** Pending rows were added or rescheduled for these endpoints. */
  invalidate(endpoints: Iterable<string>): void;
  clear(): void;
}

export function createDueCache(): DueCache {
  let known: { endpoints: Set<string>; dueAt: number | null } | null = null;
  return {
    lookup(busy) {
      if (known === null) return undefined;
      // Excluding more endpoints than when we looked can only push the answer later: still a safe bound.
      const busySet = new Set(busy);
      for (const endpoint of known.endpoints) if (!busySet.has(endpoint)) return undefined;
      return { dueAt: known.dueAt };
    },
    remember(busy, dueAt) {
      known = { endpoints: new Set(busy), dueAt };
    },
    invalidate(endpoints) {
      if (known === null) return;
      const cached = known.endpoints;
      for (const endpoint of endpoints) if (!cached.has(endpoint)) known = null;
    },
    clear() {
      known = null;
    },
  };
}

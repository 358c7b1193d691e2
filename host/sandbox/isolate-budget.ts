// Which idle isolates a worker disposes to stay within its share of the isolate memory budget
// (and the optional count cap): least recently used first, never one with work in flight, never
// the newcomer about to start. Pure: the worker supplies sizes, idleness and recency.

export interface BudgetCandidate {
  /** Live, or the newcomer about to start. */
  idle: boolean;
  lastUsedAt: number;
  /** Its memory: the last measured size, or an estimate before the first measurement. */
  bytes: number;
}

/**
 * The candidates to dispose, in order, so that what stays live fits in `budgetBytes` and
 * `maxCount`. Busy isolates and the newcomer are never chosen, so the result can leave the worker
 * over budget when everything else is busy; it catches up once they are idle.
 */
export function isolatesToEvict<C extends BudgetCandidate>(live: C[], newcomer: C | undefined, budgetBytes: number, maxCount: number): C[] {
  let used = 0;
  for (const candidate of live) used += candidate.bytes;
  let count = live.length;
  const idle = live.filter((candidate) => candidate.idle && candidate !== newcomer).sort((a, b) => a.lastUsedAt - b.lastUsedAt);
  const evicted: C[] = [];
  for (const candidate of idle) {
    if (used <= budgetBytes && count <= maxCount) break;
    evicted.push(candidate);
    used -= candidate.bytes;
    count--;
  }
  return evicted;
}

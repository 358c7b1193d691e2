// Which idle isolates a worker disposes to stay within its share of the isolate memory budget
// (and the optional count cap): least recently used first, never one with work in flight, never
// the newcomer about to start; the warm pool's unused realms count too and go first. Pure: the
// worker supplies sizes, idleness and recency.

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
export function isolatesToEvict<C extends BudgetCandidate>(
  live: C[],
  newcomer: C | undefined,
  budgetBytes: number,
  maxCount: number,
): C[] {
  let used = 0;
  for (const candidate of live) used += candidate.bytes;
  let count = live.length;
  const idle = live
    .filter((candidate) => candidate.idle && candidate !== newcomer)
    .sort((a, b) => a.lastUsedAt - b.lastUsedAt);
  const evicted: C[] = [];
  for (const candidate of idle) {
    if (used <= budgetBytes && count <= maxCount) break;
    evicted.push(candidate);
    used -= candidate.bytes;
    count--;
  }
  return evicted;
}

/** A worker's warm pool as the budget sees it (isolate-pool.ts): ready realms in the order take() hands them out. */
export interface PoolView<R> {
  ready: R[];
  /** A realm is being made: it takes memory already and cannot be given up before it is ready. */
  making: boolean;
  bytesEach: number;
}

export interface PoolCandidate<R> extends BudgetCandidate {
  /** Set for a ready realm of the pool (disposing it frees its memory; no integration loses anything). */
  realm?: R;
}

/**
 * The pool's realms as budget candidates beside the live isolates: idle and never used
 * (lastUsedAt -Infinity), so isolatesToEvict gives them up before any integration's isolate. The
 * realm a starting newcomer is about to take is the newcomer's own memory: not counted twice.
 */
export function poolCandidates<R>(pool: PoolView<R>, newcomerTakesOne: boolean): PoolCandidate<R>[] {
  // The newcomer takes the first ready realm, or, with none ready, the one being made.
  const ready = newcomerTakesOne ? pool.ready.slice(1) : pool.ready;
  const making = pool.making && !(newcomerTakesOne && pool.ready.length === 0);
  // Newest first: the realm take() would hand out next is the last to go.
  const candidates: PoolCandidate<R>[] = [...ready]
    .reverse()
    .map((realm) => ({ realm, idle: true, lastUsedAt: -Infinity, bytes: pool.bytesEach }));
  if (making) candidates.push({ idle: false, lastUsedAt: -Infinity, bytes: pool.bytesEach });
  return candidates;
}

/**
 * Whether one more isolate of `bytes` fits beside `candidates` within the budget and the count cap (the pool refills
 * only then).
 */
export function fitsOneMore(
  candidates: BudgetCandidate[],
  bytes: number,
  budgetBytes: number,
  maxCount: number,
): boolean {
  let used = bytes;
  for (const candidate of candidates) used += candidate.bytes;
  return used <= budgetBytes && candidates.length + 1 <= maxCount;
}

/** What surelyWithin needs: counts and the largest size, no walk over the isolates. */
export interface BudgetBound {
  /** Integrations registered in the worker: at most this many of their isolates are live or starting. */
  integrations: number;
  /** Most realms the warm pool holds at once (its size, plus the one being made). */
  poolRealms: number;
  /** At least the size every isolate and realm counts for (the largest measured, or the estimate before any). */
  largestBytes: number;
}

/**
 * Whether the worker is within its budget and count cap even if every registered integration's
 * isolate were live at the largest size, beside a full pool: then no eviction is needed and the
 * per-isolate walk (isolatesToEvict over every candidate) can be skipped. A sufficient condition
 * only: false says nothing, and the caller walks.
 */
export function surelyWithin(bound: BudgetBound, budgetBytes: number, maxCount: number): boolean {
  const count = bound.integrations + bound.poolRealms;
  return count <= maxCount && count * bound.largestBytes <= budgetBytes;
}

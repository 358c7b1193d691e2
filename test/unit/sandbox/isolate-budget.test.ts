import { describe, it, expect } from 'vitest';
import { fitsOneMore, isolatesToEvict, poolCandidates, surelyWithin } from '../../../host/sandbox/isolate-budget.ts';

const MB = 1024 * 1024;
const isolate = (name: string, lastUsedAt: number, mb: number, idle = true) => ({
  name,
  lastUsedAt,
  bytes: mb * MB,
  idle,
});

describe('isolatesToEvict', () => {
  it('evicts nothing while the live isolates fit the budget and the count', () => {
    const live = [isolate('a', 1, 3), isolate('b', 2, 3)];
    expect(isolatesToEvict(live, undefined, 8 * MB, 10)).toEqual([]);
  });

  it('evicts the least recently used idle isolates until the rest fit', () => {
    const live = [isolate('new', 9, 3, false), isolate('b', 2, 3), isolate('a', 1, 3), isolate('c', 3, 3)];
    expect(isolatesToEvict(live, live[0], 7 * MB, 10).map((c) => c.name)).toEqual(['a', 'b']);
  });

  it('counts by size, so one large isolate makes room for several small ones', () => {
    const live = [isolate('new', 9, 2, false), isolate('big', 1, 20), isolate('small', 2, 2)];
    expect(isolatesToEvict(live, live[0], 10 * MB, 10).map((c) => c.name)).toEqual(['big']);
  });

  it(
    'never evicts the newcomer or an isolate with work in ' + 'flight, even when that leaves the worker over budget',
    () => {
      const live = [isolate('new', 9, 5, false), isolate('busy', 1, 5, false), isolate('idle', 2, 5)];
      expect(isolatesToEvict(live, live[0], 4 * MB, 10).map((c) => c.name)).toEqual(['idle']);
    },
  );

  it('applies the count cap on top of the budget', () => {
    const live = [isolate('new', 9, 1, false), isolate('a', 1, 1), isolate('b', 2, 1)];
    expect(isolatesToEvict(live, live[0], 100 * MB, 2).map((c) => c.name)).toEqual(['a']);
  });
});

describe('the warm pool in the isolate budget', () => {
  const pool = (ready: string[], making = false) => ({ ready, making, bytesEach: 2 * MB });
  const label = (candidate: { realm?: string; name?: string }) => candidate.realm ?? candidate.name;

  it('gives up unused pooled realms, newest first, before any integration isolate', () => {
    const live = [isolate('new', 9, 3, false), isolate('a', 1, 3), ...poolCandidates(pool(['r1', 'r2']), false)];
    const evicted = isolatesToEvict(live, live[0], 6 * MB, 10);
    expect(evicted.map(label)).toEqual(['r2', 'r1']);
  });

  it('evicts integration isolates only once the pool is empty', () => {
    const live = [isolate('new', 9, 3, false), isolate('a', 1, 3), ...poolCandidates(pool(['r1']), false)];
    expect(isolatesToEvict(live, live[0], 3 * MB, 10).map(label)).toEqual(['r1', 'a']);
  });

  it('does not count twice the realm a starting newcomer is about to take, and never gives it up', () => {
    const candidates = poolCandidates(pool(['next', 'spare']), true);
    expect(candidates.map((c) => c.realm)).toEqual(['spare']);
  });

  it("counts the realm being made as the newcomer's when none is ready (the newcomer waits for it)", () => {
    expect(poolCandidates(pool([], true), true)).toEqual([]);
    expect(poolCandidates(pool(['next'], true), true)).toHaveLength(1);
  });

  it('counts a realm being made but never chooses it', () => {
    const candidates = poolCandidates(pool([], true), false);
    expect(candidates).toHaveLength(1);
    expect(isolatesToEvict([isolate('a', 1, 3), ...candidates], undefined, 1 * MB, 10).map(label)).toEqual(['a']);
  });

  it('lets the pool refill only when one more realm fits the budget and the count cap', () => {
    const live = [isolate('a', 1, 3), ...poolCandidates(pool(['r1']), false)];
    expect(fitsOneMore(live, 2 * MB, 7 * MB, 10)).toBe(true);
    expect(fitsOneMore(live, 2 * MB, 6 * MB, 10)).toBe(false);
    expect(fitsOneMore(live, 2 * MB, 100 * MB, 2)).toBe(false);
  });
});

describe('surelyWithin (the check that spares the walk over every isolate)', () => {
  it('holds when every integration at the largest size and a full pool fit the budget and the count', () => {
    expect(surelyWithin({ integrations: 10, poolRealms: 3, largestBytes: 4 * MB }, 52 * MB, 13)).toBe(true);
  });

  it('does not hold once that worst case passes the budget, however small the isolates really are', () => {
    expect(surelyWithin({ integrations: 10, poolRealms: 3, largestBytes: 4 * MB }, 52 * MB - 1, 100)).toBe(false);
  });

  it('does not hold once the integrations and the pool could pass the count cap', () => {
    expect(surelyWithin({ integrations: 10, poolRealms: 3, largestBytes: 1 }, 1_000 * MB, 12)).toBe(false);
  });

  it('never holds where the walk would evict: a worst case that fits leaves nothing for isolatesToEvict', () => {
    const live = [
      isolate('new', 9, 4, false),
      isolate('a', 1, 3),
      isolate('b', 2, 4),
      ...poolCandidates({ ready: ['r1', 'r2'], making: true, bytesEach: 2 * MB }, false),
    ];
    const bound = { integrations: 3, poolRealms: 3, largestBytes: 4 * MB };
    for (const budget of [20, 23, 24, 30].map((mb) => mb * MB)) {
      if (surelyWithin(bound, budget, 10)) expect(isolatesToEvict(live, live[0], budget, 10)).toEqual([]);
    }
    expect(isolatesToEvict(live, live[0], 14 * MB, 10)).not.toEqual([]);
    expect(surelyWithin(bound, 14 * MB, 10)).toBe(false);
  });
});

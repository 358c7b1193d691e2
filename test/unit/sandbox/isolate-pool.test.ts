// The warm pool's rules, with stand-in realms: a realm leaves once and never comes back, an empty
// pool refills once no dispatch waits, one with a realm ready once the worker is quiet (by itself
// then), neither while the budget has no room, a pool of 0 makes nothing, and a runtime
// that cannot start turns the pool off with one line instead of retrying forever.
import { describe, it, expect } from 'vitest';
import { IsolatePool, type PoolOptions } from '../../../host/sandbox/isolate-pool.ts';
import type { PreparedRealm } from '../../../host/sandbox/realm.ts';

interface FakeRealm extends PreparedRealm {
  id: number;
}

function fakeRealm(id: number): FakeRealm {
  let disposed = false;
  const isolate = {
    get isDisposed() {
      return disposed;
    },
    dispose() {
      disposed = true;
    },
    getHeapStatistics: async () => ({
      total_physical_size: 1_000_000,
      externally_allocated_size: 0,
      malloced_memory: 500_000,
    }),
  };
  return { id, isolate } as unknown as FakeRealm;
}

/** A pool driven by hand: deferred work runs when the test says so. */
function harness(overrides: Partial<PoolOptions> = {}) {
  const queue: (() => void)[] = [];
  /** The delay each deferral asked for, in order. */
  const delays: number[] = [];
  const made: FakeRealm[] = [];
  const warnings: string[] = [];
  /** `busy`: a dispatch is in flight; `waitMs`: what is left of the worker's quiet window (0: quiet). */
  const state = { busy: false, waitMs: 0, room: true };
  const pool = new IsolatePool({
    size: 2,
    prepare: async () => {
      const realm = fakeRealm(made.length + 1);
      made.push(realm);
      return realm;
    },
    busy: () => state.busy,
    waitMs: () => state.waitMs,
    hasRoom: () => state.room,
    warn: (text) => warnings.push(text),
    defer: (work, delayMs) => {
      delays.push(delayMs);
      queue.push(work);
    },
    ...overrides,
  });
  /** Runs deferred work (and the promises it starts) until nothing is left. */
  const settle = async () => {
    for (let round = 0; round < 50; round++) {
      await new Promise((resolve) => setImmediate(resolve));
      const work = queue.splice(0);
      if (work.length === 0) continue;
      for (const item of work) item();
    }
  };
  return { pool, made, warnings, state, settle, queue, delays };
}

describe('warm isolate pool', () => {
  it('fills up to its size, one realm at a time, and hands each realm out once', async () => {
    const { pool, made, settle } = harness();
    pool.refillSoon();
    await settle();
    expect(pool.size).toBe(2);
    const first = pool.take() as FakeRealm;
    const second = pool.take() as FakeRealm;
    expect(first.id).not.toBe(second.id);
    await settle();
    // Refilled with new realms: the ones handed out never come back.
    expect(pool.size).toBe(2);
    const next = [pool.take() as FakeRealm, pool.take() as FakeRealm];
    expect(next.map((realm) => realm.id)).toEqual([3, 4]);
    expect(made).toHaveLength(4);
  });

  it('never hands out a realm whose isolate is already disposed', async () => {
    const { pool, settle } = harness();
    pool.refillSoon();
    await settle();
    const [first, second] = pool.view().ready as FakeRealm[];
    first.isolate.dispose();
    expect(pool.take()).toBe(second);
  });

  it('hands the realm being made to a start that finds none ready; it never reaches the pool', async () => {
    let finish: () => void = () => undefined;
    const made: FakeRealm[] = [];
    const { pool, settle, queue } = harness({
      size: 1,
      prepare: () =>
        new Promise((resolve) => {
          finish = () => {
            const realm = fakeRealm(made.length + 1);
            made.push(realm);
            resolve(realm);
          };
        }),
    });
    pool.refillSoon();
    queue.splice(0).forEach((work) => work());
    expect(pool.view().making).toBe(true);
    const claimed = pool.take();
    expect(claimed).toBeInstanceOf(Promise);
    // Claimed: the budget no longer counts it as the pool's.
    expect(pool.view().making).toBe(false);
    // A second start finds nothing: the one being made is the first one's.
    expect(pool.take()).toBeUndefined();
    finish();
    expect(((await claimed) as FakeRealm).id).toBe(1);
    await settle();
    finish();
    await settle();
    expect(pool.size).toBe(1);
    expect((pool.take() as FakeRealm).id).toBe(2);
  });

  it('gives a start waiting for a realm that failed to be made undefined, so it makes its own', async () => {
    const { pool, queue } = harness({ prepare: async () => Promise.reject(new Error('no runtime')) });
    pool.refillSoon();
    queue.splice(0).forEach((work) => work());
    expect(await pool.take()).toBeUndefined();
  });

  it('answers undefined when empty, so the start makes its own realm', () => {
    const { pool } = harness();
    expect(pool.take()).toBeUndefined();
  });

  it('an empty pool does not refill while a dispatch of the worker waits', async () => {
    const { pool, made, state, settle } = harness();
    state.busy = true;
    pool.refillSoon();
    await settle();
    expect(made).toHaveLength(0);
    state.busy = false;
    pool.refillSoon();
    await settle();
    expect(pool.size).toBe(2);
  });

  it('an empty pool refills as soon as no dispatch waits, quiet or not', async () => {
    const { pool, made, state, queue } = harness();
    state.waitMs = 5;
    pool.refillSoon();
    queue.splice(0).forEach((work) => work());
    expect(made).toHaveLength(1);
  });

  it('with a realm ready, waits until the worker is quiet, then refills without being asked again', async () => {
    const { pool, made, state, settle, queue, delays } = harness();
    pool.refillSoon();
    queue.splice(0).forEach((work) => work()); // the first realm: the pool was empty
    state.waitMs = 4;
    await settle();
    expect(pool.size).toBe(1);
    expect(made).toHaveLength(1);
    // Put off by what the worker said is left of its quiet window, again each time it is not over.
    expect(delays.length).toBeGreaterThan(2);
    expect(delays.slice(2).every((delay) => delay === 4)).toBe(true);
    expect(queue).toHaveLength(1);
    state.waitMs = 0;
    await settle();
    expect(pool.size).toBe(2);
    expect(made).toHaveLength(2);
  });

  it('with a realm ready and the worker quiet, refills beside a dispatch that keeps running', async () => {
    const { pool, state, settle, queue } = harness();
    pool.refillSoon();
    queue.splice(0).forEach((work) => work());
    await settle();
    expect(pool.size).toBe(2);
    pool.take();
    state.busy = true; // a dispatch in flight for longer than the quiet window
    await settle();
    expect(pool.size).toBe(2);
  });

  it('does not refill when the isolate budget has no room', async () => {
    const { pool, made, state, settle } = harness();
    state.room = false;
    pool.refillSoon();
    await settle();
    expect(made).toHaveLength(0);
    expect(pool.take()).toBeUndefined();
  });

  it('gives up a ready realm the budget needs, disposing it', async () => {
    const { pool, settle } = harness();
    pool.refillSoon();
    await settle();
    const [, spare] = pool.view().ready as FakeRealm[];
    expect(pool.discard(spare)).toBe(true);
    expect(spare.isolate.isDisposed).toBe(true);
    expect(pool.size).toBe(1);
    expect(pool.discard(spare)).toBe(false);
  });

  it('reports its realms and the measured size of one to the budget', async () => {
    const { pool, settle } = harness();
    pool.refillSoon();
    await settle();
    const view = pool.view();
    expect(view.ready).toHaveLength(2);
    expect(view.making).toBe(false);
    expect(view.bytesEach).toBe(1_500_000);
  });

  it('makes nothing with a size of 0', async () => {
    const { pool, made, settle } = harness({ size: 0 });
    pool.refillSoon();
    await settle();
    expect(made).toHaveLength(0);
    expect(pool.take()).toBeUndefined();
  });

  it('turns itself off with one warning when realms keep failing to start', async () => {
    let attempts = 0;
    const { pool, warnings, settle } = harness({
      prepare: async () => {
        attempts++;
        throw new Error('the runtime could not start');
      },
    });
    pool.refillSoon();
    await settle();
    expect(attempts).toBe(3);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/warm isolate pool is off.*the runtime could not start/);
    pool.refillSoon();
    await settle();
    expect(attempts).toBe(3);
  });

  it('disposes its realms on close and makes no more', async () => {
    const { pool, made, settle } = harness();
    pool.refillSoon();
    await settle();
    pool.close();
    expect(made.every((realm) => realm.isolate.isDisposed)).toBe(true);
    pool.refillSoon();
    await settle();
    expect(made).toHaveLength(2);
  });
});

// The loop both store-backed queues share: attempts what it claims up to its concurrency, looks
// again when an attempt settles, and after a store failure looks again by itself (a queue whose
// store failed once must not wait for the next poke to run its due work); it announces a queued
// item to other hosts only when it has no slot for it.
import { describe, expect, it } from 'vitest';
import { createLeaseLoop, retryDelayMs } from '../../../host/common/lease-loop.ts';
import { waitFor } from '../../helpers/host.ts';

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined } as never;

describe('createLeaseLoop', () => {
  it('looks at the store again by itself after it failed', async () => {
    let claims = 0;
    const attempted: number[] = [];
    const loop = createLeaseLoop<number>({
      name: 'test queue',
      concurrency: 2,
      maxSleepMs: 20,
      claim: async () => {
        claims++;
        if (claims === 1) throw new Error('the store is away');
        return claims === 2 ? [7] : [];
      },
      attempt: async (item) => void attempted.push(item),
      describe: (item) => `item ${item}`,
      nextDueAt: async () => undefined,
      now: () => Date.now(),
      log: quiet,
    });
    loop.start();
    await waitFor(() => attempted.length === 1);
    expect(attempted).toEqual([7]);
    await loop.stop();
  });

  it('never runs more attempts at once than its concurrency', async () => {
    let running = 0;
    let most = 0;
    let left = 6;
    const loop = createLeaseLoop<number>({
      name: 'test queue',
      concurrency: 2,
      maxSleepMs: 20,
      claim: async (free) => {
        const take = Math.min(free, left);
        left -= take;
        return Array.from({ length: take }, (_, i) => i);
      },
      attempt: async () => {
        running++;
        most = Math.max(most, running);
        await new Promise((resolve) => setImmediate(resolve));
        running--;
      },
      describe: (item) => `item ${item}`,
      nextDueAt: async () => undefined,
      now: () => Date.now(),
      log: quiet,
    });
    loop.start();
    await waitFor(() => left === 0 && running === 0);
    await loop.stop();
    expect(most).toBe(2);
  });
});

describe('announcing queued items to other hosts', () => {
  it('announces a due item only when no slot is free for it, and never one due later', async () => {
    let announcements = 0;
    const hold: (() => void)[] = [];
    let left = 0;
    const loop = createLeaseLoop<number>({
      name: 'test queue',
      concurrency: 2,
      maxSleepMs: 60_000,
      claim: async (free) => {
        const take = Math.min(free, left);
        left -= take;
        return Array.from({ length: take }, (_, i) => i);
      },
      attempt: () => new Promise<void>((resolve) => hold.push(resolve)),
      describe: (item) => `item ${item}`,
      nextDueAt: async () => undefined,
      now: () => 1_000,
      log: quiet,
      announce: () => announcements++,
    });
    // Stopped (not started yet): whatever is due is announced.
    loop.queued(1_000);
    expect(announcements).toBe(1);
    loop.start();
    // Two slots: two items queued in one burst fit, the third does not, one due later is not announced.
    left = 3;
    loop.queued(1_000);
    loop.queued(1_000);
    loop.queued(1_000);
    loop.queued(2_000);
    expect(announcements).toBe(2);
    await waitFor(() => hold.length === 2);
    // Both slots busy: the next due item is announced.
    loop.queued(1_000);
    expect(announcements).toBe(3);
    for (const release of hold.splice(0)) release();
    await waitFor(() => hold.length === 1);
    for (const release of hold.splice(0)) release();
    await loop.stop();
  });
});

describe('retryDelayMs', () => {
  it('grows 6x per attempt from the base, up to the cap', () => {
    expect([1, 2, 3].map((attempt) => retryDelayMs(10_000, attempt))).toEqual([10_000, 60_000, 360_000]);
    expect(retryDelayMs(10_000, 5, 3_600_000)).toBe(3_600_000);
  });
});

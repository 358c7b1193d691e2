// Group commit (store/grouped-writes.ts): an idle call is written at once; calls made while a write
// is in flight share the next write; each caller gets its own results or its own failure.
import { describe, expect, it } from 'vitest';
import { groupedWrites } from '../../../host/store/grouped-writes.ts';

/** A write whose calls are recorded and held until released one by one. */
function heldWrite(fail?: (items: string[]) => Error | undefined) {
  const calls: string[][] = [];
  const releases: (() => void)[] = [];
  const write = (items: string[]): Promise<string[]> => {
    calls.push(items);
    return new Promise((resolve, reject) => {
      releases.push(() => {
        const error = fail?.(items);
        if (error === undefined) resolve(items.map((item) => item.toUpperCase()));
        else reject(error);
      });
    });
  };
  /** Releases the oldest write still held, once it has been made. */
  const release = async (): Promise<void> => {
    while (releases.length === 0) await new Promise((resolve) => setImmediate(resolve));
    releases.shift()!();
  };
  return { calls, write, release };
}

const dataError = (message: string) => Object.assign(new Error(message), { code: '22P02' });
const byCode = (error: unknown) => (error as { code?: string }).code === '22P02';
const LIMITS = { maxItems: 100, maxBytes: 1_000, sizeOf: (item: string) => item.length };

describe('grouped writes', () => {
  it('writes a call made while nothing is in flight at once, alone', async () => {
    const held = heldWrite();
    const grouped = groupedWrites(held.write, { ...LIMITS, mayBeOneCallers: byCode });
    const result = grouped(['a', 'b']);
    expect(held.calls).toEqual([['a', 'b']]);
    await held.release();
    await expect(result).resolves.toEqual(['A', 'B']);
  });

  it('writes the calls made during a write together, next, each caller getting its own results in order', async () => {
    const held = heldWrite();
    const grouped = groupedWrites(held.write, { ...LIMITS, mayBeOneCallers: byCode });
    const first = grouped(['a']);
    const second = grouped(['b', 'c']);
    const third = grouped(['d']);
    expect(held.calls).toEqual([['a']]);
    await held.release();
    await held.release();
    expect(held.calls).toEqual([['a'], ['b', 'c', 'd']]);
    expect(await Promise.all([first, second, third])).toEqual([['A'], ['B', 'C'], ['D']]);
  });

  it('never puts more than maxItems in one write, and never overlaps two writes', async () => {
    const held = heldWrite();
    const grouped = groupedWrites(held.write, { ...LIMITS, maxItems: 3, mayBeOneCallers: byCode });
    const results = [grouped(['a']), grouped(['b', 'c']), grouped(['d', 'e']), grouped(['f'])];
    for (let i = 0; i < 3; i++) {
      await held.release();
      // The write just released was the only one made: none overlaps it.
      expect(held.calls).toHaveLength(i + 1);
    }
    expect(held.calls).toEqual([['a'], ['b', 'c'], ['d', 'e', 'f']]);
    expect(await Promise.all(results)).toEqual([['A'], ['B', 'C'], ['D', 'E'], ['F']]);
  });

  it("writes a group that failed on one caller's data again caller by caller, failing only that caller", async () => {
    const held = heldWrite((items) => (items.includes('bad') ? dataError('invalid input') : undefined));
    const grouped = groupedWrites(held.write, { ...LIMITS, mayBeOneCallers: byCode });
    const first = grouped(['a']);
    const results = Promise.allSettled([grouped(['b']), grouped(['bad']), grouped(['c'])]);
    await held.release();
    await first;
    for (let i = 0; i < 4; i++) await held.release();
    expect(held.calls).toEqual([['a'], ['b', 'bad', 'c'], ['b'], ['bad'], ['c']]);
    const [b, bad, c] = await results;
    expect(b).toEqual({ status: 'fulfilled', value: ['B'] });
    expect(bad).toMatchObject({ status: 'rejected', reason: { message: 'invalid input' } });
    expect(c).toEqual({ status: 'fulfilled', value: ['C'] });
  });

  it('fails every caller of a group at once when the error is not one of data (the database unreachable)', async () => {
    const held = heldWrite((items) => (items.length > 1 ? new Error('connection terminated') : undefined));
    const grouped = groupedWrites(held.write, { ...LIMITS, mayBeOneCallers: byCode });
    const first = grouped(['a']);
    const results = Promise.allSettled([grouped(['b']), grouped(['c'])]);
    await held.release();
    await held.release();
    await expect(first).resolves.toEqual(['A']);
    for (const settled of await results)
      expect(settled).toMatchObject({ status: 'rejected', reason: { message: 'connection terminated' } });
    expect(held.calls).toHaveLength(2);
    // And the next call is written at once, alone.
    expect(held.calls).toEqual([['a'], ['b', 'c']]);
    const later = grouped(['d']);
    await held.release();
    await expect(later).resolves.toEqual(['D']);
  });

  it('fails the callers queued during a write that failed for want of the database, without trying them', async () => {
    const held = heldWrite(() => new Error('connection terminated'));
    const grouped = groupedWrites(held.write, { ...LIMITS, mayBeOneCallers: byCode });
    const first = grouped(['a']);
    const queued = Promise.allSettled([grouped(['b']), grouped(['c'])]);
    await held.release();
    await expect(first).rejects.toThrow('connection terminated');
    for (const settled of await queued)
      expect(settled).toMatchObject({ status: 'rejected', reason: { message: 'connection terminated' } });
    expect(held.calls).toEqual([['a']]);
  });

  it('never puts more than maxBytes in one write, a larger caller going alone', async () => {
    const held = heldWrite();
    const grouped = groupedWrites(held.write, { ...LIMITS, maxBytes: 4, mayBeOneCallers: byCode });
    const results = [grouped(['a']), grouped(['bb', 'cc']), grouped(['d']), grouped(['eeeeee']), grouped(['f'])];
    for (let i = 0; i < 5; i++) await held.release();
    expect(held.calls).toEqual([['a'], ['bb', 'cc'], ['d'], ['eeeeee'], ['f']]);
    expect(await Promise.all(results)).toEqual([['A'], ['BB', 'CC'], ['D'], ['EEEEEE'], ['F']]);
  });

  it('settles its callers when the error cannot be read, and goes on writing', async () => {
    const held = heldWrite((items) => (items.length > 1 ? (null as unknown as Error) : undefined));
    const grouped = groupedWrites(held.write, {
      ...LIMITS,
      mayBeOneCallers: (error) => (error as { code: string }).code === '22P02',
    });
    const first = grouped(['a']);
    const queued = Promise.allSettled([grouped(['b']), grouped(['c'])]);
    await held.release();
    await held.release();
    await expect(first).resolves.toEqual(['A']);
    expect((await queued).map((settled) => settled.status)).toEqual(['rejected', 'rejected']);
    const later = grouped(['d']);
    await held.release();
    await expect(later).resolves.toEqual(['D']);
  });
});

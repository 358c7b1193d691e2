// A host start's prefill of first requests: every listed installation prepared, one per turn of
// the event loop (requests arriving meanwhile go first), at most `max`, none after stop(); a
// failing listing or preparation is one warning, never a failed start.
import { describe, expect, it } from 'vitest';
import { prefillFirstRequests } from '../../../host/assembly/first-requests.ts';
import type { Installation } from '../../../host/installations/model.ts';

const installation = (id: string): Installation => ({
  id,
  integration: 'hello',
  organization: 'acme',
  target: 'organization',
  status: 'active',
  configuration: {},
  createdAt: '2026-01-01T00:00:00Z',
});
const listed = ['inst_1', 'inst_2', 'inst_3', 'inst_4'].map(installation);

/** A defer() whose turns the test runs one at a time. */
function turns() {
  const queue: (() => void)[] = [];
  return {
    defer: (work: () => void) => void queue.push(work),
    async next(): Promise<boolean> {
      const work = queue.shift();
      if (work === undefined) return false;
      work();
      // Let the awaited preparation settle before the next turn is looked at.
      for (let i = 0; i < 10; i++) await Promise.resolve();
      return true;
    },
  };
}

describe('prefillFirstRequests', () => {
  it('prepares every listed installation, one per turn of the event loop', async () => {
    const prepared: string[] = [];
    const clock = turns();
    const prefill = prefillFirstRequests({
      list: async () => listed,
      prepare: async (one) => (prepared.push(one.id), true),
      warn: () => undefined,
      defer: clock.defer,
    });
    expect(prepared).toEqual([]);
    await clock.next(); // the listing
    const seen: number[] = [];
    while (await clock.next()) seen.push(prepared.length);
    expect(seen).toEqual([1, 2, 3, 4]);
    expect(await prefill.done).toBe(4);
  });

  it('prepares at most `max` installations and counts only those that could run', async () => {
    const prepared: string[] = [];
    const prefill = prefillFirstRequests({
      list: async () => listed,
      prepare: async (one) => (prepared.push(one.id), one.id !== 'inst_2'),
      warn: () => undefined,
      max: 3,
    });
    expect(await prefill.done).toBe(2);
    expect(prepared).toEqual(['inst_1', 'inst_2', 'inst_3']);
  });

  it('prepares nothing more after stop()', async () => {
    const prepared: string[] = [];
    const clock = turns();
    const prefill = prefillFirstRequests({
      list: async () => listed,
      prepare: async (one) => (prepared.push(one.id), true),
      warn: () => undefined,
      defer: clock.defer,
    });
    await clock.next();
    await clock.next();
    prefill.stop();
    while (await clock.next());
    expect(prepared).toEqual(['inst_1']);
    expect(await prefill.done).toBe(1);
  });

  it('warns once for failed preparations and goes on with the others', async () => {
    const warnings: string[] = [];
    const prefill = prefillFirstRequests({
      list: async () => listed,
      prepare: async (one) => {
        if (one.id === 'inst_2' || one.id === 'inst_3') throw new Error('store unavailable');
        return true;
      },
      warn: (text) => warnings.push(text),
    });
    expect(await prefill.done).toBe(2);
    expect(warnings).toEqual([
      '2 installations could not be prepared ahead of their first request (inst_2: store unavailable); their ' +
        'first requests build it themselves',
    ]);
  });

  it('warns and prepares nothing when the installations cannot be listed', async () => {
    const warnings: string[] = [];
    const prefill = prefillFirstRequests({
      list: async () => Promise.reject(new Error('database closed')),
      prepare: async () => true,
      warn: (text) => warnings.push(text),
    });
    expect(await prefill.done).toBe(0);
    expect(warnings[0]).toContain('database closed');
  });
});

// The runtime's timers (sandbox-api/runtime/timers.ts) as the worker's clock drives them: a due
// timer never runs before the microtasks the running code had already queued, even when the clock
// fires it before their checkpoint (what isolated-vm allows on a loaded machine).
import { describe, expect, it } from 'vitest';
import { createTimers } from '../../../sandbox-api/runtime/timers.ts';

function clock() {
  const due = new Map<number, number>();
  const errors: unknown[] = [];
  const timers = createTimers({
    setTimer: (id, delayMs) => void due.set(id, delayMs),
    clearTimer: (id) => void due.delete(id),
    reportError: (error) => void errors.push(error),
  });
  return { timers, due, errors };
}

describe('runtime timers', () => {
  it('run a due callback after the microtasks already queued, not before', async () => {
    const { timers } = clock();
    const events: string[] = [];
    const id = timers.setTimeout(
      (a: unknown, b: unknown) => events.push(`timeout ${String(a)}${String(b)}`),
      5,
      'x',
      'y',
    );
    queueMicrotask(() => events.push('microtask'));
    timers.fire(id);
    await new Promise((resolve) => setImmediate(resolve));
    expect(events).toEqual(['microtask', 'timeout xy']);
  });

  it(
    'reschedule an interval when it fires, drop a timeout, ' + 'ignore cleared ids and report a throwing callback',
    async () => {
      const { timers, due, errors } = clock();
      let ticks = 0;
      const interval = timers.setInterval(() => ticks++, 2);
      const once = timers.setTimeout(() => {
        throw new Error('timer boom');
      }, 1);
      const cancelled = timers.setTimeout(() => (ticks += 100), 5);
      timers.clearTimeout(cancelled);
      timers.fire(interval);
      timers.fire(once);
      timers.fire(cancelled);
      await new Promise((resolve) => setImmediate(resolve));
      expect(ticks).toBe(1);
      expect(due.has(interval)).toBe(true);
      expect(due.has(cancelled)).toBe(false);
      expect(timers.pendingCount()).toBe(1);
      expect(errors).toHaveLength(1);
      expect((errors[0] as Error).message).toBe('timer boom');
    },
  );

  it('convert the delay as a WebIDL long: 2 ** 32 wraps to 0, negatives and NaN are 0', () => {
    const { timers, due } = clock();
    const delays = [2 ** 32, 2 ** 32 + 5, 2 ** 31, -5, NaN, '12', 7.9, Infinity, 2 ** 31 - 1].map((delay) =>
      due.get(timers.setTimeout(() => {}, delay)),
    );
    expect(delays).toEqual([0, 5, 0, 0, 0, 12, 7, 0, 2 ** 31 - 1]);
    expect(due.get(timers.setInterval(() => {}, 2 ** 32))).toBe(1);
    expect(() => timers.setTimeout(() => {}, 1n)).toThrow(TypeError);
  });

  it('are four functions named as HTML spells them, with WebIDL lengths, sharing one list of ids', async () => {
    const { timers, due } = clock();
    const named = (['setTimeout', 'setInterval', 'clearTimeout', 'clearInterval'] as const).map((name) => [
      timers[name].name,
      timers[name].length,
    ]);
    expect(named).toEqual([
      ['setTimeout', 1],
      ['setInterval', 1],
      ['clearTimeout', 0],
      ['clearInterval', 0],
    ]);
    const interval = timers.setInterval(() => {}, 5);
    timers.clearTimeout(interval);
    expect(due.has(interval)).toBe(false);
  });
});

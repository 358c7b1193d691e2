// The dispatcher's pure parts: slot accounting, the due-time cache and attempt settlement.
import { describe, expect, it } from 'vitest';
import { createSlots } from '../../../host/webhooks/slots.ts';
import { createDueCache } from '../../../host/webhooks/due-cache.ts';
import { settleAttempt } from '../../../host/webhooks/settle-attempt.ts';

describe('createSlots', () => {
  it('marks an endpoint busy at its own bound and the whole set full at the global bound', () => {
    const slots = createSlots(3, 2);
    slots.take('https://a');
    slots.take('https://a');
    expect(slots.busyEndpoints()).toEqual(['https://a']);
    expect(slots.isFull()).toBe(false);
    slots.take('https://b');
    expect(slots.isFull()).toBe(true);
    slots.release('https://a');
    expect(slots.busyEndpoints()).toEqual([]);
    expect(slots.size()).toBe(2);
  });
});

describe('createDueCache', () => {
  it('answers for the same or a larger busy set until a row outside it changes', () => {
    const cache = createDueCache();
    expect(cache.lookup(['a'])).toBeUndefined();
    cache.remember(['a'], null);
    expect(cache.lookup(['a'])).toEqual({ dueAt: null });
    expect(cache.lookup(['a', 'b'])).toEqual({ dueAt: null });
    expect(cache.lookup([])).toBeUndefined();
    cache.invalidate(['a']);
    expect(cache.lookup(['a'])).toEqual({ dueAt: null });
    cache.invalidate(['c']);
    expect(cache.lookup(['a'])).toBeUndefined();
  });
});

describe('settleAttempt', () => {
  it('schedules the retry from the time the attempt finished', () => {
    expect(settleAttempt(1, 100, { status: 503, durationMs: 40.6 }, 141, () => 0)).toEqual({
      record: {
        attempt: 1,
        startedAt: 100,
        durationMs: 41,
        statusCode: 503,
        errorKind: null,
        errorMessage: null,
        nextAttemptAt: 1_141,
      },
      next: { status: 'pending', nextAttemptAt: 1_141 },
    });
  });

  it('records the error kind and message of a network failure and ends after the last retry', () => {
    expect(settleAttempt(4, 0, { error: 'refused', message: 'ECONNREFUSED', durationMs: 1 }, 1, () => 0)).toEqual({
      record: {
        attempt: 4,
        startedAt: 0,
        durationMs: 1,
        statusCode: null,
        errorKind: 'refused',
        errorMessage: 'ECONNREFUSED',
        nextAttemptAt: null,
      },
      next: { status: 'failed' },
    });
  });
});

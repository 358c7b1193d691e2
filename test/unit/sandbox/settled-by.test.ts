import { describe, it, expect, vi, afterEach } from 'vitest';
import { settledBy, untilMoment } from '../../../host/sandbox/settled-by.ts';

afterEach(() => {
  vi.useRealTimers();
});

describe('settledBy', () => {
  it('is true when the work resolves before the moment, false when the moment comes first', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    let finish: () => void = () => undefined;
    const work = new Promise<void>((resolve) => (finish = resolve));
    const early = settledBy(work, performance.now() + 1_000);
    const late = settledBy(new Promise(() => undefined), performance.now() + 1_000);
    await vi.advanceTimersByTimeAsync(999);
    finish();
    expect(await early).toBe(true);
    await vi.advanceTimersByTimeAsync(1);
    expect(await late).toBe(false);
  });

  it('counts a rejection as settled and never rejects itself', async () => {
    const failed = Promise.reject(new Error('verdict lost'));
    expect(await settledBy(failed, performance.now() + 10_000)).toBe(true);
  });

  it('answers false at once for a moment already past, whatever the work does later', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    let finish: () => void = () => undefined;
    const answer = settledBy(new Promise<void>((resolve) => (finish = resolve)), performance.now() - 5);
    await vi.advanceTimersByTimeAsync(0);
    finish();
    expect(await answer).toBe(false);
  });

  it('waits until a moment, or not at all for one already past', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    let arrived = false;
    void untilMoment(performance.now() + 500).then(() => (arrived = true));
    await vi.advanceTimersByTimeAsync(499);
    expect(arrived).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(arrived).toBe(true);
    let past = false;
    void untilMoment(performance.now() - 10).then(() => (past = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(past).toBe(true);
  });
});

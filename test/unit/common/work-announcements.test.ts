// The debounce of "work waits" announcements: a burst of requests costs a handful of NOTIFYs, not one
// each; the first goes out at once, nothing asked for is ever dropped (the last of a burst goes out by
// the end of the interval, or of the next one when an insert could carry it), and details accumulate.
import { describe, expect, it } from 'vitest';
import {
  createAnnouncementDebounce,
  type WorkDetail,
  type WorkQueue,
} from '../../../host/common/work-announcements.ts';

/** A debounce on a hand-moved clock: `advance` fires the timers that fall due, in order. */
function harness(intervalMs = 50) {
  let now = 0;
  const timers = new Map<number, { at: number; callback: () => void }>();
  let nextHandle = 0;
  const sent: { queue: WorkQueue; detail: WorkDetail; at: number }[] = [];
  const debounce = createAnnouncementDebounce({
    intervalMs,
    now: () => now,
    send: (queue, detail) => sent.push({ queue, detail, at: now }),
    setTimer(callback, delayMs) {
      timers.set(++nextHandle, { at: now + delayMs, callback });
      return nextHandle;
    },
    clearTimer: (handle) => void timers.delete(handle as number),
  });
  const advance = (ms: number): void => {
    const until = now + ms;
    for (;;) {
      const due = [...timers].filter(([, timer]) => timer.at <= until).sort(([, x], [, y]) => x.at - y.at)[0];
      if (due === undefined) break;
      timers.delete(due[0]);
      now = Math.max(now, due[1].at);
      due[1].callback();
    }
    now = until;
  };
  return { debounce, sent, advance, pendingTimers: () => timers.size };
}

describe('announcement debounce', () => {
  it('sends a burst of 1,000 requests over 200 ms as at most five announcements', () => {
    const { debounce, sent, advance } = harness();
    for (let i = 0; i < 1_000; i++) {
      debounce.request('webhooks', [`https://r${i % 3}.example`]);
      advance(0.2);
    }
    advance(1_000);
    expect(sent.length).toBeGreaterThanOrEqual(2);
    expect(sent.length).toBeLessThanOrEqual(5);
    // At most one per interval, the first at once, the last of the burst no later than an interval after it.
    expect(sent[0].at).toBe(0);
    for (let i = 1; i < sent.length; i++) expect(sent[i].at - sent[i - 1].at).toBeGreaterThanOrEqual(50);
    expect(sent.at(-1)!.at).toBeLessThanOrEqual(250);
    expect(new Set(sent.flatMap((announcement) => announcement.detail ?? []))).toEqual(
      new Set(['https://r0.example', 'https://r1.example', 'https://r2.example']),
    );
  });

  it('keeps each queue to its own interval', () => {
    const { debounce, sent, advance } = harness();
    debounce.request('tasks');
    debounce.request('owed-events');
    debounce.request('tasks');
    advance(100);
    expect(sent.map((announcement) => [announcement.queue, announcement.at])).toEqual([
      ['tasks', 0],
      ['owed-events', 0],
      ['tasks', 50],
    ]);
  });

  it('lets a steady stream of inserts carry every announcement, with no round trip of its own', () => {
    const { debounce, sent, advance } = harness();
    let carried = 0;
    for (let i = 0; i < 400; i++) {
      if (debounce.carry('webhooks', ['https://r.example']) !== undefined) carried++;
      advance(1);
    }
    // One carried per interval of the 400 ms; none sent alone while inserts kept coming.
    expect(carried).toBeGreaterThanOrEqual(6);
    expect(carried).toBeLessThanOrEqual(8);
    expect(sent).toEqual([]);
    // The end of the stream: what the last inserts could not carry goes out alone, once.
    advance(1_000);
    expect(sent).toHaveLength(1);
    expect(sent[0].detail).toEqual(['https://r.example']);
  });

  it('sends what an insert could not carry by the end of the next interval', () => {
    const { debounce, sent, advance } = harness();
    expect(debounce.carry('webhooks', ['https://a.example'])).toEqual({ detail: ['https://a.example'] });
    advance(10);
    expect(debounce.carry('webhooks', ['https://b.example'])).toBeUndefined();
    advance(89);
    expect(sent).toEqual([]);
    advance(1);
    expect(sent).toEqual([{ queue: 'webhooks', detail: ['https://b.example'], at: 100 }]);
  });

  it('announces the whole queue once any request did not name its work', () => {
    const { debounce, sent, advance } = harness();
    debounce.request('webhooks', ['https://a.example']);
    debounce.request('webhooks', ['https://b.example']);
    debounce.request('webhooks');
    advance(50);
    expect(sent.map((announcement) => announcement.detail)).toEqual([['https://a.example'], undefined]);
  });

  it('drops what waits when closed', () => {
    const { debounce, sent, advance, pendingTimers } = harness();
    debounce.request('tasks');
    debounce.request('tasks');
    debounce.close();
    advance(1_000);
    expect(sent).toHaveLength(1);
    expect(pendingTimers()).toBe(0);
  });
});

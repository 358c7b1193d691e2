import { describe, it, expect } from 'vitest';
import { TimeoutBreaker } from '../../../host/sandbox/timeout-breaker.ts';

function breaker(now: { t: number }) {
  return new TimeoutBreaker({ limit: 3, windowMs: 60_000, cooldownMs: 30_000, now: () => now.t });
}

describe('TimeoutBreaker', () => {
  it('opens on the third timeout within the window and refuses for the cool-down', () => {
    const now = { t: 0 };
    const b = breaker(now);
    expect(b.record('spin')).toBe(false);
    expect(b.record('spin')).toBe(false);
    expect(b.retryAfterMs('spin')).toBe(0);
    expect(b.record('spin')).toBe(true);
    expect(b.retryAfterMs('spin')).toBe(30_000);
    now.t = 29_999;
    expect(b.retryAfterMs('spin')).toBe(1);
    now.t = 30_000;
    expect(b.retryAfterMs('spin')).toBe(0);
  });

  it('gives a fresh budget after the cool-down', () => {
    const now = { t: 0 };
    const b = breaker(now);
    for (let i = 0; i < 3; i++) b.record('spin');
    now.t = 31_000;
    expect(b.record('spin')).toBe(false);
    expect(b.retryAfterMs('spin')).toBe(0);
  });

  it('forgets timeouts older than the window', () => {
    const now = { t: 0 };
    const b = breaker(now);
    b.record('slow');
    b.record('slow');
    now.t = 61_000;
    expect(b.record('slow')).toBe(false);
  });

  it('keeps integrations apart', () => {
    const b = breaker({ t: 0 });
    for (let i = 0; i < 3; i++) b.record('spin');
    expect(b.retryAfterMs('hello')).toBe(0);
  });
});

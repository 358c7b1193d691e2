// The retry schedule (docs/webhooks.md): which outcomes retry, and the jittered delays' bounds.
import { describe, expect, it } from 'vitest';
import { classifyOutcome, MAX_ATTEMPTS, nextStep, retryDelayMs } from '../../../host/webhooks/schedule.ts';

describe('retryDelayMs', () => {
  it.each([
    [1, 1_000],
    [2, 2_000],
    [3, 4_000],
  ])('keeps retry %i within [base, 1.1 × base] for base %i ms', (retry, base) => {
    expect(retryDelayMs(retry, () => 0)).toBe(base);
    expect(retryDelayMs(retry, () => 0.5)).toBe(base * 1.05);
    expect(retryDelayMs(retry, () => 0.999999)).toBeLessThanOrEqual(base * 1.1);
    expect(retryDelayMs(retry, () => 1)).toBe(base * 1.1);
    for (let i = 0; i < 200; i++) {
      const delay = retryDelayMs(retry, Math.random);
      expect(delay).toBeGreaterThanOrEqual(base);
      expect(delay).toBeLessThanOrEqual(base * 1.1);
      expect(Number.isInteger(delay)).toBe(true);
    }
  });

  it('clamps a misbehaving random source into the range', () => {
    expect(retryDelayMs(1, () => -3)).toBe(1_000);
    expect(retryDelayMs(1, () => 7)).toBe(1_100);
  });

  it('has no fourth retry', () => {
    expect(() => retryDelayMs(0, Math.random)).toThrow(RangeError);
    expect(() => retryDelayMs(4, Math.random)).toThrow(RangeError);
  });
});

describe('classifyOutcome', () => {
  it.each([
    [200, 'success'],
    [201, 'success'],
    [204, 'success'],
    [299, 'success'],
    [301, 'fail'],
    [302, 'fail'],
    [304, 'fail'],
    [307, 'fail'],
    [400, 'fail'],
    [401, 'fail'],
    [403, 'fail'],
    [404, 'fail'],
    [410, 'fail'],
    [413, 'fail'],
    [422, 'fail'],
    [429, 'retry'],
    [500, 'retry'],
    [502, 'retry'],
    [503, 'retry'],
    [504, 'retry'],
    [599, 'retry'],
    [100, 'fail'],
    [600, 'fail'],
  ] as const)('classifies HTTP %i as %s', (status, expected) => {
    expect(classifyOutcome({ status })).toBe(expected);
  });

  it.each(['timeout', 'refused', 'reset', 'dns', 'network'])('retries the network error %s', (error) => {
    expect(classifyOutcome({ error })).toBe('retry');
  });

  it('does not retry a destination the egress policy refuses, nor an unsigned delivery', () => {
    expect(classifyOutcome({ error: 'blocked' })).toBe('fail');
    expect(classifyOutcome({ error: 'unsigned' })).toBe('fail');
  });
});

describe('nextStep', () => {
  it('allows one attempt plus three retries', () => {
    expect(MAX_ATTEMPTS).toBe(4);
    expect(nextStep(1, { status: 503 }, () => 0)).toEqual({ status: 'pending', delayMs: 1_000 });
    expect(nextStep(2, { status: 503 }, () => 0)).toEqual({ status: 'pending', delayMs: 2_000 });
    expect(nextStep(3, { status: 503 }, () => 0)).toEqual({ status: 'pending', delayMs: 4_000 });
    expect(nextStep(4, { status: 503 }, () => 0)).toEqual({ status: 'failed' });
  });

  it('succeeds or fails at once regardless of the attempt number', () => {
    expect(nextStep(3, { status: 200 }, () => 0)).toEqual({ status: 'succeeded' });
    expect(nextStep(1, { status: 400 }, () => 0)).toEqual({ status: 'failed' });
  });
});

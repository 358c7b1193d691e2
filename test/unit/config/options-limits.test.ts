// Limits whose range is not "a positive integer": the warm pool's size may be 0 (off) and is
// bounded; a bad value is refused naming the field.
import { describe, it, expect } from 'vitest';
import { MAX_WARM_ISOLATES_PER_WORKER, resolveOptions } from '../../../host/config/options.ts';

describe('warmIsolatesPerWorker', () => {
  it('defaults to 2 realms per worker', () => {
    expect(resolveOptions({}).limits.warmIsolatesPerWorker).toBe(2);
  });

  it('accepts 0 (no pool) up to the bound', () => {
    expect(resolveOptions({ limits: { warmIsolatesPerWorker: 0 } }).limits.warmIsolatesPerWorker).toBe(0);
    expect(
      resolveOptions({ limits: { warmIsolatesPerWorker: MAX_WARM_ISOLATES_PER_WORKER } }).limits.warmIsolatesPerWorker,
    ).toBe(16);
  });

  it.each([
    [17, 'must be <= 16'],
    [-1, 'must be >= 0'],
    [1.5, 'must be integer'],
  ])('refuses %s with ERR_OPTIONS_INVALID naming the field', (value, problem) => {
    expect(() => resolveOptions({ limits: { warmIsolatesPerWorker: value } })).toThrow(
      expect.objectContaining({
        code: 'ERR_OPTIONS_INVALID',
        message: expect.stringContaining(`/limits/warmIsolatesPerWorker: ${problem}`),
      }),
    );
  });

  it('still refuses 0 for the other limits', () => {
    expect(() => resolveOptions({ limits: { maxLiveIsolatesPerWorker: 0 } })).toThrow(
      /\/limits\/maxLiveIsolatesPerWorker: must be >= 1/,
    );
  });
});

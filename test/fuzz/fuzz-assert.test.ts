// The fuzz helper: a property its time budget interrupts passes only if it ran at least its floor of
// cases, and says how many it ran either way; a property that ran every case passes quietly.
import { afterEach, describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import { fuzz, minRunsFor } from './fuzz-assert.ts';

afterEach(() => vi.restoreAllMocks());

/** A property whose `hangAt`th case never settles: the budget interrupts it after `hangAt - 1` cases. */
function hangingAt(hangAt: number) {
  let calls = 0;
  return fc.asyncProperty(fc.integer(), async () => {
    calls++;
    if (calls >= hangAt) await new Promise(() => {});
  });
}

describe('fuzz', () => {
  it('passes quietly when every case ran', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    let ran = 0;
    await fuzz(
      fc.property(fc.integer(), () => void ran++),
      { numRuns: 25 },
    );
    expect(ran).toBe(25);
    expect(warn).not.toHaveBeenCalled();
  });

  it('fails a property interrupted before its first case, saying it ran none', async () => {
    await expect(
      fuzz(
        fc.property(fc.integer(), () => {}),
        { numRuns: 100, timeLimitMs: 0 },
      ),
    ).rejects.toThrow(/interrupted: it ran 0 of 100 cases before its 0 ms budget ran out, fewer than its floor of 20/);
  });

  it('fails a property interrupted below its floor, naming how many cases ran', async () => {
    await expect(fuzz(hangingAt(3), { numRuns: 100, timeLimitMs: 200, minRuns: 3 })).rejects.toThrow(
      /it ran 2 of 100 cases .* fewer than its floor of 3/,
    );
  });

  it('passes a property interrupted at its floor, reporting how many cases ran', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    await fuzz(hangingAt(4), { numRuns: 100, timeLimitMs: 200, minRuns: 3 });
    expect(warn).toHaveBeenCalledWith(
      expect.stringMatching(
        /interrupted: it ran 3 of 100 cases before its 200 ms budget ran out \(floor 3, seed -?\d+\)/,
      ),
    );
  });

  it('still fails a property that found a counterexample, with the seed to replay it', async () => {
    await expect(
      fuzz(
        fc.property(fc.integer(), (n) => n < 5),
        { numRuns: 200 },
      ),
    ).rejects.toThrow(/fuzz property failed — reproduce with FUZZ_SEED=/);
  });

  it('defaults the floor to a fifth of the cases, at least one', () => {
    expect([minRunsFor(1), minRunsFor(10), minRunsFor(40), minRunsFor(400)]).toEqual([1, 2, 8, 80]);
  });
});

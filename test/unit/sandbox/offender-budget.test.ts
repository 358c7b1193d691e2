import { describe, it, expect } from 'vitest';
import { sendingBudget } from '../../../host/offenders/offender-budget.ts';

describe("an offenders' dispatch's sending budget", () => {
  it('is what is left of the deadline while at least half of it is', () => {
    expect(sendingBudget(11_000, 1_000, 10_000)).toBe(10_000);
    expect(sendingBudget(11_000, 4_000, 10_000)).toBe(7_000);
    expect(sendingBudget(11_000, 6_000, 10_000)).toBe(5_000);
  });

  it('is none once more than half of the deadline went on waiting, or all of it', () => {
    expect(sendingBudget(11_000, 6_001, 10_000)).toBeNull();
    expect(sendingBudget(11_000, 11_000, 10_000)).toBeNull();
    expect(sendingBudget(11_000, 12_500, 10_000)).toBeNull();
  });
});

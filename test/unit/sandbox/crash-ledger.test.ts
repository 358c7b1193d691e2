import { describe, it, expect } from 'vitest';
import { CrashLedger } from '../../../host/sandbox/crash-ledger.ts';

describe('CrashLedger', () => {
  it('quarantines on the third crash within the window', () => {
    let now = 0;
    const ledger = new CrashLedger(3, 60_000, () => now);
    expect(ledger.record('bad')).toBe(false);
    now = 10_000;
    expect(ledger.record('bad')).toBe(false);
    now = 59_000;
    expect(ledger.record('bad')).toBe(true);
    expect(ledger.isQuarantined('bad')).toBe(true);
    expect(ledger.isQuarantined('good')).toBe(false);
  });

  it('forgets crashes older than the window', () => {
    let now = 0;
    const ledger = new CrashLedger(3, 60_000, () => now);
    ledger.record('flaky');
    ledger.record('flaky');
    now = 61_000;
    expect(ledger.record('flaky')).toBe(false);
    expect(ledger.crashCount('flaky')).toBe(1);
    expect(ledger.isQuarantined('flaky')).toBe(false);
  });

  it('reports quarantine only once', () => {
    const ledger = new CrashLedger(1, 60_000, () => 0);
    expect(ledger.record('x')).toBe(true);
    expect(ledger.record('x')).toBe(false);
  });
});

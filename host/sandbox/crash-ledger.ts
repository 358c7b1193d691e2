// Counts sandbox crashes per integration in a sliding window and decides quarantine. Pure apart
// from the injectable clock; quarantine lasts until the host process restarts (by design), or
// until the dev loop replaces the integration's code.

export class CrashLedger {
  private readonly crashes = new Map<string, number[]>();
  private readonly quarantined = new Set<string>();
  private readonly limit: number;
  private readonly windowMs: number;
  private readonly now: () => number;

  constructor(limit: number, windowMs: number, now: () => number = Date.now) {
    this.limit = limit;
    this.windowMs = windowMs;
    this.now = now;
  }

  /** Records one crash; returns true when this crash puts the integration into quarantine. */
  record(integration: string): boolean {
    if (this.quarantined.has(integration)) return false;
    const now = this.now();
    const recent = (this.crashes.get(integration) ?? []).filter((at) => now - at < this.windowMs);
    recent.push(now);
    this.crashes.set(integration, recent);
    if (recent.length < this.limit) return false;
    this.quarantined.add(integration);
    return true;
  }

  /** Forgets the integration's crashes and lifts its quarantine (its code was replaced). */
  forget(integration: string): void {
    this.crashes.delete(integration);
    this.quarantined.delete(integration);
  }

  isQuarantined(integration: string): boolean {
    return this.quarantined.has(integration);
  }

  crashCount(integration: string): number {
    const now = this.now();
    return (this.crashes.get(integration) ?? []).filter((at) => now - at < this.windowMs).length;
  }
}

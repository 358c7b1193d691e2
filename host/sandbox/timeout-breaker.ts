// Counts dispatch timeouts per integration and opens a cool-down when one keeps running into its
// deadline: each timeout burns a whole deadline of CPU, so an integration that spins on every
// request would otherwise tax its neighbours indefinitely. Pure apart from the injectable clock.

export interface TimeoutBreakerOptions {
  /** Timeouts within `windowMs` that open the breaker. */
  limit: number;
  windowMs: number;
  /** How long dispatches are refused once it opens. */
  cooldownMs: number;
  now?: () => number;
}

export class TimeoutBreaker {
  private readonly timeouts = new Map<string, number[]>();
  private readonly openUntil = new Map<string, number>();
  private readonly options: TimeoutBreakerOptions;
  private readonly now: () => number;

  constructor(options: TimeoutBreakerOptions) {
    this.options = options;
    this.now = options.now ?? Date.now;
  }

  /** Records a timeout; returns true when this one opens the breaker. */
  record(integration: string): boolean {
    const now = this.now();
    const recent = (this.timeouts.get(integration) ?? []).filter((at) => now - at < this.options.windowMs);
    recent.push(now);
    if (recent.length < this.options.limit) {
      this.timeouts.set(integration, recent);
      return false;
    }
    // Opening forgets the strikes, so after the cool-down the integration gets a fresh budget.
    this.timeouts.delete(integration);
    this.openUntil.set(integration, now + this.options.cooldownMs);
    return true;
  }

  /** Forgets the integration's timeouts and closes its breaker (its code was replaced). */
  forget(integration: string): void {
    this.timeouts.delete(integration);
    this.openUntil.delete(integration);
  }

  /** Milliseconds left in the cool-down, or 0 when dispatches may go through. */
  retryAfterMs(integration: string): number {
    const until = this.openUntil.get(integration);
    if (until === undefined) return 0;
    const left = until - this.now();
    if (left <= 0) {
      this.openUntil.delete(integration);
      return 0;
    }
    return left;
  }
}

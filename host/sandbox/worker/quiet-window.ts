// The worker's quiet window: how long background work that creates an isolate synchronously still
// waits after the last dispatch or registration. It only keeps time; it never starts that work.

/**
 * The worker's quiet window: background work that creates an isolate synchronously (the warm pool's
 * refill while a realm is still ready; on the offenders' workers, the precompiler) starts only once
 * no dispatch arrived or was answered and no integration registered for this long. A caller's next
 * request (a retry after a 504, the next page of a client) usually follows its answer within a few
 * milliseconds on loopback, and an integration moved here registers just before the request that
 * moved it; either would otherwise wait behind that creation (1–15 ms of this thread). An empty
 * pool refills at once.
 */
const QUIET_MS = 5;

export class QuietWindow {
  /** performance.now() of the last dispatch this worker received or answered, or the last registration. */
  private lastActivity = -Infinity;

  /** Something happened at `at` (a dispatch received or answered, a registration). */
  touch(at = performance.now()): void {
    this.lastActivity = at;
  }

  /** What is left of the quiet window (0: quiet now). */
  waitMs(): number {
    return Math.max(0, this.lastActivity + QUIET_MS - performance.now());
  }
}

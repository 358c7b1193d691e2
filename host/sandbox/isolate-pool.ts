// A sandbox worker's warm pool: a few realms (realm.ts) made ahead of time, so a cold integration
// skips creating its isolate and bootstrapping the runtime. A realm leaves the pool once, for one
// integration, and never comes back; the pool refills one realm at a time while the worker's
// isolate budget has room: an empty pool as soon as no dispatch waits, one with a realm still ready
// only once the worker is quiet (no dispatch just arrived or just answered). It never runs guest code.

import { deferWork } from './defer-work.ts';
import type { PreparedRealm } from './realm.ts';
import type { PoolView } from './isolate-budget.ts';

export interface PoolOptions {
  /** How many realms to keep ready (0: no pool). */
  size: number;
  /** Makes one realm (isolate, context, bootstrapped runtime). */
  prepare(): Promise<PreparedRealm>;
  /** Whether a dispatch of this worker is in flight: then an empty pool does not refill. */
  busy(): boolean;
  /**
   * How long a pool that still has a realm ready waits before refilling (0: now): what is left of
   * the worker's quiet window after its last dispatch arrived or was answered. It asks again then.
   */
  waitMs(): number;
  /** Whether the worker's isolate budget has room for one more realm of `bytes`. */
  hasRoom(bytes: number): boolean;
  /** One line for the worker's log (a refill that keeps failing turns the pool off). */
  warn(text: string): void;
  /** Schedules work off the critical path after `delayMs` (setImmediate for 0, else a timer; tests may drive it). */
  defer?(work: () => void, delayMs: number): void;
}

/** What a realm is assumed to take before one was measured (the runtime alone is ~1–2 MB). */
const DEFAULT_REALM_BYTES = 2 * 1024 * 1024;
/** Consecutive failed refills after which the pool turns itself off (a runtime that cannot start). */
const MAX_FAILURES = 3;

export class IsolatePool {
  private readonly ready: PreparedRealm[] = [];
  private readonly options: PoolOptions;
  /** A realm being made (at most one at a time), and whether a start has claimed it already. */
  private filling = false;
  private making: Promise<PreparedRealm | undefined> | null = null;
  private makingClaimed = false;
  private scheduled = false;
  private failures = 0;
  private disabled: boolean;
  /** The last measured size of a ready realm: the estimate for the next one. */
  private realmBytes = DEFAULT_REALM_BYTES;

  constructor(options: PoolOptions) {
    this.options = options;
    this.disabled = options.size <= 0;
  }

  /** Realms ready now. */
  get size(): number {
    return this.ready.length;
  }

  /** The size a pooled realm counts for in the budget: the last one measured, or the estimate before any. */
  get bytesEach(): number {
    return this.realmBytes;
  }

  /** What the budget needs to know (isolate-budget.ts poolCandidates): ready realms in take() order. */
  view(): PoolView<PreparedRealm> {
    return { ready: [...this.ready], making: this.filling && !this.makingClaimed, bytesEach: this.realmBytes };
  }

  /**
   * Hands out a realm for good (never returned): a ready one; else the one being made, once it is
   * (a start that waits for it finishes sooner than one making its own beside it, and the two
   * would share the worker's cores); else undefined. A refill follows off the critical path.
   */
  take(): PreparedRealm | Promise<PreparedRealm | undefined> | undefined {
    let realm = this.ready.shift();
    // One isolated-vm disposed by itself meanwhile is of no use to anyone.
    while (realm !== undefined && realm.isolate.isDisposed) realm = this.ready.shift();
    if (realm === undefined && this.making !== null && !this.makingClaimed) {
      this.makingClaimed = true;
      return this.making;
    }
    this.refillSoon();
    return realm;
  }

  /** Disposes one ready realm to free its memory (the budget needs it); false when none is ready. */
  discard(realm: PreparedRealm): boolean {
    const index = this.ready.indexOf(realm);
    if (index < 0) return false;
    this.ready.splice(index, 1);
    dispose(realm);
    return true;
  }

  /** Asks for a refill once the worker's current work is done (after `delayMs`, then quiet and room checks). */
  refillSoon(delayMs = 0): void {
    if (this.disabled || this.scheduled || this.filling || this.ready.length >= this.options.size) return;
    this.scheduled = true;
    (this.options.defer ?? deferWork)(() => {
      this.scheduled = false;
      this.fillOne();
    }, delayMs);
  }

  /** Disposes every ready realm and makes no more (worker shutdown, tests). */
  close(): void {
    this.disabled = true;
    for (const realm of this.ready.splice(0)) dispose(realm);
  }

  private fillOne(): void {
    if (this.disabled || this.filling || this.ready.length >= this.options.size) return;
    if (this.ready.length === 0) {
      // The next cold start would build its own realm: refill as soon as no dispatch waits (the
      // worker asks again once its dispatches are answered).
      if (this.options.busy()) return;
    } else {
      // A realm is ready, so the worker's dispatches go first: making one holds its thread for a
      // millisecond or two (creating the isolate is synchronous), which a caller's next request,
      // arriving a few ms after its answer, would wait for. Try again once the worker is quiet; a
      // dispatch that keeps running (awaiting, or a guest spinning to its deadline) does not hold
      // the refill back beyond that.
      const waitMs = this.options.waitMs();
      if (waitMs > 0) {
        this.refillSoon(waitMs);
        return;
      }
    }
    if (!this.options.hasRoom(this.realmBytes)) return;
    this.filling = true;
    this.makingClaimed = false;
    const done = (): boolean => {
      const claimed = this.makingClaimed;
      this.filling = false;
      this.making = null;
      this.makingClaimed = false;
      return claimed;
    };
    this.making = this.options.prepare().then(
      async (realm) => {
        try {
          const stats = await realm.isolate.getHeapStatistics();
          this.realmBytes = stats.total_physical_size + stats.externally_allocated_size + stats.malloced_memory;
        } catch {
          // Disposed meanwhile (close()); handled below.
        }
        this.failures = 0;
        const claimed = done();
        this.refillSoon();
        // Claimed while it was being made: it is that start's alone.
        if (claimed) return realm.isolate.isDisposed ? undefined : realm;
        if (this.disabled || realm.isolate.isDisposed) dispose(realm);
        else this.ready.push(realm);
        return undefined;
      },
      (error: unknown) => {
        done();
        if (++this.failures >= MAX_FAILURES) {
          this.disabled = true;
          this.options.warn(
            `the warm isolate pool is off: ${MAX_FAILURES} realms in a row could not be prepared ` +
              `(${error instanceof Error ? error.message : String(error)}); isolates start on demand`,
          );
        } else this.refillSoon();
        // A start waiting for it makes its own realm instead.
        return undefined;
      },
    );
  }
}

function dispose(realm: PreparedRealm): void {
  if (realm.isolate.isDisposed) return;
  try {
    realm.isolate.dispose();
  } catch {
    // Disposed by isolated-vm itself meanwhile: nothing left to free.
  }
}

// The loop both store-backed queues run (tasks, owed platform events): claims due items under a
// lease up to a concurrency, attempts each, looks again when one settles, when poked, or when the
// next one falls due (at most maxSleepMs later), and again after a store failure; tells the other
// hosts of a shared store of due work queued here that it cannot start. Owns no verdicts: what an
// attempt does, and how it settles, is the queue's.

import type { Logger } from './logger.ts';

export interface LeaseLoopDeps<T> {
  /** Names the queue in log lines ("task runner", "owed events"). */
  name: string;
  concurrency: number;
  /** The longest sleep between looks at the store (other hosts' items, lapsed leases, a store that failed). */
  maxSleepMs: number;
  /** Claims up to `free` due items under a lease. */
  claim(free: number): Promise<T[]>;
  /** Attempts one item and settles it in the store. */
  attempt(item: T): Promise<void>;
  /** How an item is named when settling it failed. */
  describe(item: T): string;
  /** When the next item falls due (ms since the epoch), if any. */
  nextDueAt(): Promise<number | undefined>;
  /** Shared stores: tells the other hosts that due work waits which this host will not start now. */
  announce?(): void;
  now(): number;
  log: Logger;
}

export interface LeaseLoop {
  start(): void;
  /** Work may be due: look now rather than at the next timer. */
  poke(): void;
  /**
   * An item was queued on this host, due at `dueAt`: look now. Announced to the other hosts when it
   * is due and no slot here is free for it (busy, or counted for an item queued since the last claim;
   * or the loop is stopped): one with a free slot takes it. A host with a free slot takes it itself
   * and announces nothing, so no other host races it for the item. An item due later is left to the
   * timers and polls (a due time is not an event).
   */
  queued(dueAt: number): void;
  /** Stops claiming; waits for the attempts in flight to settle. */
  stop(): Promise<void>;
}

/** The delay before the retry that follows attempt `attempts` (1-based): 6× the previous one, capped. */
export function retryDelayMs(baseMs: number, attempts: number, maxMs = Infinity): number {
  return Math.min(maxMs, baseMs * 6 ** Math.max(0, attempts - 1));
}

export function createLeaseLoop<T>(deps: LeaseLoopDeps<T>): LeaseLoop {
  let timer: NodeJS.Timeout | undefined;
  let stopped = true;
  let ticking: Promise<void> | undefined;
  let again = false;
  const inFlight = new Set<Promise<void>>();
  // Slots counted on by items queued here since the last claim.
  let reserved = 0;

  const wakeIn = (ms: number): void => {
    clearTimeout(timer);
    timer = setTimeout(() => loop.poke(), ms);
    timer.unref();
  };

  async function tick(): Promise<void> {
    do {
      again = false;
      const free = deps.concurrency - inFlight.size;
      if (free > 0 && !stopped) {
        const claimed = await deps.claim(free);
        reserved = 0;
        for (const item of claimed) {
          const running = deps
            .attempt(item)
            .catch((error: unknown) =>
              deps.log.error(`${deps.describe(item)} could not be settled: ${(error as Error).message}`),
            )
            .finally(() => {
              inFlight.delete(running);
              loop.poke();
            });
          inFlight.add(running);
        }
      }
    } while (again && !stopped);
    // With every slot busy, the next attempt to settle looks again.
    if (stopped || inFlight.size >= deps.concurrency) return;
    const next = await deps.nextDueAt();
    wakeIn(next === undefined ? deps.maxSleepMs : Math.min(deps.maxSleepMs, Math.max(0, next - deps.now())));
  }

  const loop: LeaseLoop = {
    start() {
      stopped = false;
      loop.poke();
    },
    poke() {
      if (stopped) return;
      if (ticking !== undefined) {
        again = true;
        return;
      }
      ticking = tick()
        .catch((error: unknown) => {
          deps.log.error(`${deps.name}: ${(error as Error).message}`);
          // The store did not answer: look again later rather than wait for the next change.
          if (!stopped) wakeIn(deps.maxSleepMs);
        })
        .finally(() => {
          ticking = undefined;
          if (again) loop.poke();
        });
    },
    queued(dueAt) {
      if (dueAt <= deps.now()) {
        if (stopped || inFlight.size + reserved >= deps.concurrency) deps.announce?.();
        else reserved++;
      }
      loop.poke();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await ticking;
      await Promise.allSettled([...inFlight]);
    },
  };
  return loop;
}

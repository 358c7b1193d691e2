// The loop both store-backed queues run (tasks, owed platform events): claims due items under a
// lease up to a concurrency, attempts each, looks again when one settles, when poked, or when the
// next one falls due (at most maxSleepMs later), and again after a store failure. Owns no verdicts:
// what an attempt does, and how it settles, is the queue's.

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
  now(): number;
  log: Logger;
}

export interface LeaseLoop {
  start(): void;
  /** Work may be due: look now rather than at the next timer. */
  poke(): void;
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
        for (const item of await deps.claim(free)) {
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
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await ticking;
      await Promise.allSettled([...inFlight]);
    },
  };
  return loop;
}

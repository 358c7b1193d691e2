// This worker's share of the isolate memory budget: what each isolate counts for, evicting the
// least recently used idle ones (and the warm pool's realms) when the live ones would pass it, and
// when to check. It never starts an isolate, and never disposes a busy one.

import type { IntegrationIsolate } from '../isolate.ts';
import { fitsOneMore, isolatesToEvict, poolCandidates, surelyWithin, type PoolCandidate } from '../isolate-budget.ts';
import type { IsolatePool } from '../isolate-pool.ts';
import type { WorkerInit } from '../messages.ts';
import type { PreparedRealm } from '../realm.ts';
import type { SendToSupervisor } from './send.ts';

/** Why an isolate this budget disposed went (the supervisor counts it as evicted). */
export const EVICTED = 'evicted (least recently used)';
/** What an isolate is assumed to take before any in this worker was measured (the runtime alone is ~2–4 MB). */
const DEFAULT_ISOLATE_BYTES = 4 * 1024 * 1024;
/** The check walks every isolate: after a measurement it waits at least this long for the next. */
const RECHECK_MS = 100;

interface Candidate extends PoolCandidate<PreparedRealm> {
  isolate?: IntegrationIsolate;
}

/** What the budget reads of its worker. */
export interface BudgetedWorker {
  /** The worker's init message, null until it came. */
  settings(): WorkerInit | null;
  isolates: ReadonlyMap<string, IntegrationIsolate>;
  /** The warm pool, null until init. */
  pool(): IsolatePool | null;
  send: SendToSupervisor;
}

export class MemoryBudget {
  /**
   * The largest memory any isolate of this worker measured so far (never lowered), at least the
   * estimate used before any measurement: what each one counts for in surelyHolds.
   */
  private largestIsolateBytes = DEFAULT_ISOLATE_BYTES;
  /** Whether the last check left this worker over budget (busy isolates could not be disposed). */
  private overBudget = false;
  /** Whether an isolate was measured since the last check (isolates grow; starts overlap). */
  private budgetChanged = false;
  private checkedAt = 0;
  private budgetCheck: NodeJS.Timeout | null = null;
  private readonly worker: BudgetedWorker;

  constructor(worker: BudgetedWorker) {
    this.worker = worker;
  }

  /**
   * Isolates are created lazily on first dispatch; to bound memory with many integrations, the
   * least recently used idle isolates are disposed whenever the live ones would pass this worker's
   * share of the memory budget (or the count cap). Sizes are each isolate's last measurement; one
   * never measured counts as the average of those that were. Isolates being created count as live
   * (and busy); `newcomer` is about to start one and is never evicted itself.
   */
  enforce(newcomer?: IntegrationIsolate): void {
    const init = this.worker.settings();
    if (init === null) return;
    if (!this.overBudget && this.surelyHolds()) {
      this.budgetChanged = false;
      this.checkedAt = performance.now();
      return;
    }
    const { candidates, coming } = this.candidates(newcomer);
    const budgetBytes = init.isolateBudgetMb * 1024 * 1024;
    // Ready realms of the warm pool never ran anything (lastUsedAt -Infinity): they go first.
    const evicted = isolatesToEvict(candidates, coming, budgetBytes, init.limits.maxLiveIsolatesPerWorker);
    for (const candidate of evicted) {
      if (candidate.realm !== undefined) {
        this.worker.pool()?.discard(candidate.realm);
        continue;
      }
      candidate.isolate?.dispose(EVICTED);
      if (candidate.isolate !== undefined)
        this.worker.send({ type: 'count', integration: candidate.isolate.name, name: 'isolate_eviction' });
    }
    let used = 0;
    for (const candidate of candidates) if (!evicted.includes(candidate)) used += candidate.bytes;
    this.overBudget = used > budgetBytes || candidates.length - evicted.length > init.limits.maxLiveIsolatesPerWorker;
    this.budgetChanged = false;
    this.checkedAt = performance.now();
  }

  /** An isolate measured its memory: it counts from now on, and the budget is checked soon. */
  measured(isolate: IntegrationIsolate): void {
    this.largestIsolateBytes = Math.max(this.largestIsolateBytes, isolate.memoryBytes);
    this.budgetChanged = true;
    this.scheduleCheck();
  }

  /**
   * A dispatch was answered. Isolates started while others were busy, or grown, may have passed the
   * budget; trim once they are idle. The check walks every isolate, so it runs only when it may find something.
   */
  afterDispatch(): void {
    if (this.overBudget) this.enforce();
    else if (this.budgetChanged) this.scheduleCheck();
  }

  /**
   * Everything that takes isolate memory in this worker: live and starting isolates (and the
   * newcomer), and the warm pool's realms, ready or being made (isolate-budget.ts).
   */
  private candidates(newcomer?: IntegrationIsolate): { candidates: Candidate[]; coming: Candidate | undefined } {
    const live = [...this.worker.isolates.values()].filter(
      (candidate) => candidate.isLive || candidate.isStarting || candidate === newcomer,
    );
    const measured = live.filter((candidate) => candidate.memoryBytes > 0);
    const typical =
      measured.length > 0
        ? measured.reduce((sum, candidate) => sum + candidate.memoryBytes, 0) / measured.length
        : DEFAULT_ISOLATE_BYTES;
    const candidates: Candidate[] = live.map((isolate) => ({
      isolate,
      idle: isolate.isIdle,
      lastUsedAt: isolate.lastUsedAt,
      bytes: isolate.memoryBytes || typical,
    }));
    const coming = candidates.find((candidate) => candidate.isolate === newcomer);
    const pool = this.worker.pool();
    if (pool !== null) candidates.push(...poolCandidates(pool.view(), coming !== undefined));
    return { candidates, coming };
  }

  /** Whether one more realm of `bytes` fits this worker's budget and count cap beside everything live. */
  hasRoom(bytes: number): boolean {
    const init = this.worker.settings();
    if (init === null) return false;
    if (this.surelyHolds(bytes)) return true;
    return fitsOneMore(
      this.candidates().candidates,
      bytes,
      init.isolateBudgetMb * 1024 * 1024,
      init.limits.maxLiveIsolatesPerWorker,
    );
  }

  /**
   * Whether this worker is within its budget and count cap even with every registered integration
   * live at the largest size seen (or `realmBytes`, a realm about to be made), beside a full pool and
   * one realm being made (isolate-budget.ts surelyWithin). Then a cold start or a refill needs no
   * walk over every isolate: the walk cost a cold start 0.17–0.28 ms with 125 integrations per worker
   * (docs/performance.md) and grows with them.
   */
  private surelyHolds(realmBytes = 0): boolean {
    const init = this.worker.settings();
    if (init === null) return false;
    const largestBytes = Math.max(this.largestIsolateBytes, this.worker.pool()?.bytesEach ?? 0, realmBytes);
    const bound = {
      integrations: this.worker.isolates.size,
      poolRealms: init.limits.warmIsolatesPerWorker + 1,
      largestBytes,
    };
    return surelyWithin(bound, init.isolateBudgetMb * 1024 * 1024, init.limits.maxLiveIsolatesPerWorker);
  }

  /** Checks the budget soon after a measurement landed, at most once per RECHECK_MS, even if no dispatch follows. */
  private scheduleCheck(): void {
    if (this.budgetCheck !== null) return;
    this.budgetCheck = setTimeout(
      () => {
        this.budgetCheck = null;
        if (this.budgetChanged) this.enforce();
      },
      Math.max(0, this.checkedAt + RECHECK_MS - performance.now()),
    );
    this.budgetCheck.unref();
  }
}

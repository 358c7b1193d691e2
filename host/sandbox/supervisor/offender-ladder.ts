// Demotion of offenders: strikes (then quarantines) an integration a crash can be pinned on, moves
// offenders down the ladder (nice 19, SCHED_IDLE) or to a worker of their own, and back again.
// It never answers a dispatch, and starts or stops a worker only for a solitary suspect.

import { demotionTarget, type OffenderScheduling, type Tier } from '../../offenders/index.ts';
import type { CrashLedger } from '../crash-ledger.ts';
import type { TimeoutBreaker } from '../timeout-breaker.ts';
import { stopSlot, type Slot } from '../worker-slot.ts';
import type { SupervisorOptions } from './options.ts';
import type { Routing } from './routing.ts';
import type { WorkerLifecycle } from './worker-lifecycle.ts';

export class OffenderLadder {
  /** Integrations on a worker of their own, with the timer that ends their probation. */
  private readonly solitary = new Map<string, { index: number; probation: NodeJS.Timeout }>();
  private nextSolitaryIndex: number;
  /** Whether the SCHED_IDLE worker could be lowered; once it could not, it is gone for good. */
  private schedIdleAvailable = true;
  private readonly routing: Routing;
  private readonly lifecycle: WorkerLifecycle;
  private readonly ledger: CrashLedger;
  private readonly breaker: TimeoutBreaker;
  private readonly scheduling: OffenderScheduling;
  private readonly options: SupervisorOptions;

  constructor(
    routing: Routing,
    lifecycle: WorkerLifecycle,
    ledger: CrashLedger,
    breaker: TimeoutBreaker,
    scheduling: OffenderScheduling,
    options: SupervisorOptions,
  ) {
    this.routing = routing;
    this.lifecycle = lifecycle;
    this.ledger = ledger;
    this.breaker = breaker;
    this.scheduling = scheduling;
    this.options = options;
    this.nextSolitaryIndex = routing.firstSolitaryIndex;
  }

  /**
   * The index of the SCHED_IDLE worker for offenders that burned CPU again on the offenders' worker;
   * undefined without demotion, or once the policy turned out to be unavailable (then they stay on
   * the nice-19 worker).
   */
  get schedIdleWorker(): number | undefined {
    return this.schedIdleAvailable ? this.routing.schedIdleIndex : undefined;
  }

  /** Whether the integration runs on a worker of its own after an unattributable crash. */
  isSolitary(integration: string): boolean {
    return this.solitary.has(integration);
  }

  /** Ends every probation (the host is shutting down). */
  stop(): void {
    for (const { probation } of this.solitary.values()) clearTimeout(probation);
  }

  /** Where the integration runs now, for the demotion ladder. */
  private tierOf(integration: string): Tier {
    if (this.solitary.has(integration)) return 'solitary';
    const pinned = this.routing.pins.get(integration);
    if (pinned !== undefined && pinned === this.routing.offenderWorker) return 'nice19';
    if (pinned !== undefined && pinned === this.routing.schedIdleIndex) return 'sched-idle';
    return 'regular';
  }

  /**
   * Moves an offender one step down the ladder (demotion.ts): from a regular worker to the nice-19
   * offenders' worker; from there, when `cpuEvidence` says it burned CPU again, to the SCHED_IDLE one.
   */
  demote(integration: string, why: string, cpuEvidence: boolean, from: number): void {
    const offenderWorker = this.routing.offenderWorker;
    if (offenderWorker === undefined || !this.routing.bundles.has(integration)) return;
    // Only CPU burnt on the offenders' worker itself sends it further: one offence on a regular
    // worker can be reported twice (the hog sampler, then the deadline), or arrive after the move.
    // While the machine has no CPU to spare, or SCHED_IDLE starved lately, it would be silenced there: it stays at nice
    // 19.
    const target = demotionTarget(
      this.tierOf(integration),
      cpuEvidence && from === offenderWorker,
      this.schedIdleWorker !== undefined && !this.scheduling.machineSaturated && !this.scheduling.schedIdleStarved,
    );
    if (target === 'nice19') {
      this.routing.move(integration, offenderWorker);
      this.options.onNotice('warn', `integration "${integration}" ${why}: moved to the low-priority sandbox worker`);
      this.options.onCount?.('demotion', integration);
    } else if (target === 'sched-idle') {
      this.routing.move(integration, this.schedIdleWorker!);
      this.options.onNotice(
        'warn',
        `integration "${integration}" ${why} and burned CPU again on the ` +
          `low-priority worker: moved to the idle-priority (SCHED_IDLE) sandbox worker`,
      );
      this.options.onCount?.('sched_idle_demotion', integration);
    }
  }

  /**
   * SCHED_IDLE runs only on CPU nobody else wants: once its worker had work and got none (normal
   * work saturates the machine), an integration there would not answer at all, so it goes back
   * to nice 19 (a share, if small). Burning CPU there again sends it back down once the hold is over.
   */
  returnIfStarved(integration: string, pinned: number): void {
    if (
      pinned === this.schedIdleWorker &&
      this.scheduling.schedIdleStarved &&
      !this.routing.inFlight(pinned, integration)
    ) {
      this.routing.move(integration, this.routing.offenderWorker!);
      this.options.onNotice(
        'warn',
        `the SCHED_IDLE sandbox worker got no CPU while it had work (the machine has none to ` +
          `spare): "${integration}" moved back to the low-priority (nice 19) worker`,
      );
      this.options.onCount?.('sched_idle_return', integration);
    }
  }

  /**
   * The SCHED_IDLE worker could not be lowered (no chrt, a kernel or sandbox that refuses it): said
   * once, and the worker goes away; its integrations and later CPU offenders stay at nice 19.
   */
  schedIdleUnavailable(slot: Slot, problem: string): void {
    if (!this.schedIdleAvailable || this.routing.slots.get(slot.index) !== slot) return;
    this.schedIdleAvailable = false;
    this.options.onNotice(
      'warn',
      `SCHED_IDLE is not available (${problem}): offenders that keep burning CPU stay on the nice-19 ` +
        `sandbox worker, where a spinning one can still delay its neighbours' wake-ups by a time slice`,
    );
    this.routing.slots.delete(slot.index);
    for (const [integration, pinned] of [...this.routing.pins])
      if (pinned === slot.index) this.routing.move(integration, this.routing.offenderWorker!);
    void stopSlot(slot, 'the SCHED_IDLE worker was retired');
  }

  /**
   * Worker `slot` died with `suspects` at work: a solitary worker's crash is its owner's, a lone
   * suspect's is its own, several suspects each get a worker of their own. False when the slot is
   * given up (its solitary owner got quarantined), true when the worker is to be restarted.
   */
  blameCrash(slot: Slot, suspects: Set<string>): boolean {
    const solitaryOwner = [...this.solitary.entries()].find(([, entry]) => entry.index === slot.index)?.[0];
    if (solitaryOwner !== undefined) {
      // Alone on its worker: the crash is its own. Probation starts over.
      const entry = this.solitary.get(solitaryOwner)!;
      clearTimeout(entry.probation);
      this.strike(solitaryOwner, 'crashed its sandbox worker');
      if (this.ledger.isQuarantined(solitaryOwner)) {
        this.solitary.delete(solitaryOwner);
        return false;
      }
      entry.probation = this.probation(solitaryOwner);
    } else if (suspects.size === 1) {
      const [culprit] = suspects;
      this.strike(culprit, 'crashed its sandbox worker');
      this.demote(culprit, 'was alone at work when its sandbox worker died', false, slot.index);
    } else if (suspects.size > 1) {
      // Any of them could have done it: none is struck, each is watched alone from now on.
      this.options.onNotice(
        'warn',
        `the crash of sandbox worker ${slot.index} cannot be pinned on one ` +
          `of ${[...suspects].join(', ')}: none is counted against, each runs alone for a ` +
          `while`,
      );
      for (const integration of suspects) this.isolateSuspect(integration);
    }
    return true;
  }

  strike(integration: string, what: string): void {
    if (this.ledger.record(integration)) {
      this.options.onCount?.('quarantine', integration);
      this.options.onNotice(
        'error',
        `integration "${integration}" ${what} ${this.options.crashesBeforeQuarantine} times ` +
          `within ${this.options.crashWindowMs / 1000} s: quarantined until the host restarts`,
      );
    }
  }

  /**
   * A dispatch ran past its deadline: demote the integration (`burned`: its isolate executed rather
   * than waited), and pause it if it keeps doing so.
   */
  countTimeout(integration: string, burned: boolean, from: number): void {
    this.demote(integration, 'ran past its deadline', burned, from);
    if (this.breaker.record(integration)) {
      const { limit, windowMs, cooldownMs } = this.options.timeoutBreaker;
      this.options.onNotice(
        'warn',
        `integration "${integration}" ran past its deadline ${limit} times ` +
          `within ${windowMs / 1000} s: paused for ${cooldownMs / 1000} s`,
      );
      this.options.onCount?.('throttle', integration);
    }
  }

  /** Gives a crash suspect a worker of its own, so that its next crash can be pinned on it. */
  private isolateSuspect(integration: string): void {
    if (this.solitary.has(integration) || !this.routing.bundles.has(integration)) return;
    if (this.solitary.size >= this.options.solitary.maxWorkers) {
      this.demote(
        integration,
        'was at work when its sandbox worker died (no worker of its own is free)',
        false,
        this.routing.pins.get(integration)!,
      );
      return;
    }
    const index = this.nextSolitaryIndex++;
    this.lifecycle.start(index);
    this.solitary.set(integration, { index, probation: this.probation(integration) });
    this.routing.move(integration, index);
    this.options.onNotice(
      'warn',
      `integration "${integration}" was at work when its sandbox worker died: moved to a worker of its ` +
        `own (${index}) until it runs ${this.options.solitary.probationMs / 1000} s without a crash`,
    );
  }

  private probation(integration: string): NodeJS.Timeout {
    return setTimeout(() => void this.endProbation(integration), this.options.solitary.probationMs).unref();
  }

  /** A suspect that ran its probation without crashing returns to a regular worker. */
  private async endProbation(integration: string): Promise<void> {
    const entry = this.solitary.get(integration);
    if (entry === undefined || this.lifecycle.stopped) return;
    this.solitary.delete(integration);
    if (!this.ledger.isQuarantined(integration)) {
      this.routing.move(integration, this.routing.leastLoadedRegular());
      this.options.onNotice(
        'info',
        `integration "${integration}" ran ${this.options.solitary.probationMs / 1000} ` +
          `s on its own without a crash: back on a regular worker`,
      );
    }
    const slot = this.routing.slots.get(entry.index);
    this.routing.slots.delete(entry.index);
    // In-flight work on it finishes first (the integration no longer dispatches there).
    if (slot !== undefined) {
      while (slot.pending.size > 0 && !this.lifecycle.stopped) await new Promise((resolve) => setTimeout(resolve, 100));
      await stopSlot(slot, 'the worker was retired');
    }
  }
}

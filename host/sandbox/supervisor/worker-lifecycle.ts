// The worker processes' lifecycle: spawns one with its init message and the integrations pinned to
// it, fails what a dead one had in flight and starts its replacement, stops them all. It never
// decides whom a crash is blamed on (the offender ladder does) nor where a dispatch goes.

import { HostError } from '../../common/errors.ts';
import type { FromWorker } from '../messages.ts';
import type { Placement } from '../placement.ts';
import { failBodies, onBodyFrame } from '../slot-bodies.ts';
import { post, spawnSlot, stopSlot, takePending, type Slot, type WorkerPriority } from '../worker-slot.ts';
import type { SupervisorOptions } from './options.ts';
import { registerMessage, type Routing } from './routing.ts';

/** What the lifecycle asks of the rest of the supervisor. */
export interface LifecycleHooks {
  onMessage(slot: Slot, message: Exclude<FromWorker, { type: 'ready' }>): void;
  /** The SCHED_IDLE worker could not be lowered: `problem` says why. */
  onSchedIdleProblem(slot: Slot, problem: string): void;
  /**
   * A worker died with `suspects` at work: blame whom it can be pinned on; false when its slot is given up, not
   * restarted.
   */
  onCrash(slot: Slot, suspects: Set<string>): boolean;
  /** The `tasks` file of the offenders' CPU-quota group, while there is one. */
  quotaTasks(): string | undefined;
}

export class WorkerLifecycle {
  private stoppedAll = false;
  private apiEndpoint: string | null = null;
  private readonly routing: Routing;
  private readonly placement: Placement;
  private readonly options: SupervisorOptions;
  private readonly hooks: LifecycleHooks;

  constructor(routing: Routing, placement: Placement, options: SupervisorOptions, hooks: LifecycleHooks) {
    this.routing = routing;
    this.placement = placement;
    this.options = options;
    this.hooks = hooks;
  }

  /** Whether the host is shutting down (stop() was called). */
  get stopped(): boolean {
    return this.stoppedAll;
  }

  /** Spawns worker `index` into its slot. */
  start(index: number): void {
    this.routing.slots.set(index, this.spawn(index));
  }

  /** How many sandbox workers are running and ready, of how many (the readiness route). */
  workersUp(): { up: number; total: number } {
    const slots = [...this.routing.slots.values()];
    return { up: this.stopped ? 0 : slots.filter((slot) => slot.up).length, total: slots.length };
  }

  /** Tells every worker (and every restarted one) where the platform API lives. */
  configure(apiEndpoint: string): void {
    this.apiEndpoint = apiEndpoint;
    for (const slot of this.routing.slots.values()) post(slot, { type: 'configure', apiEndpoint });
  }

  async stop(): Promise<void> {
    this.stoppedAll = true;
    await Promise.all([...this.routing.slots.values()].map((slot) => stopSlot(slot, 'the host is shutting down')));
  }

  private spawn(index: number): Slot {
    const { regularCount, offenderWorker, schedIdleIndex } = this.routing;
    const priority: WorkerPriority =
      index < regularCount ? 'normal' : index === schedIdleIndex ? 'sched-idle' : 'nice19';
    const slot = spawnSlot(index, priority, {
      onMessage: (from, message) => this.hooks.onMessage(from, message),
      onBodyFrame: (from, kind, id, _value, payload) => onBodyFrame(from, kind, id, payload),
      onExit: (from, code, signal) => this.onExit(from, code, signal),
      onError: (_from, error) => this.options.onNotice('error', `sandbox worker ${index} error: ${error.message}`),
      onSchedIdle: (from, problem) => {
        if (problem !== null) this.hooks.onSchedIdleProblem(from, problem);
      },
    });
    const isolateBudgetMb = Math.max(1, Math.floor(this.options.isolateMemoryMb / regularCount));
    // Only the two offenders' workers go under the quota (not solitary suspects, not regular workers).
    const quotaTasks = index === offenderWorker || index === schedIdleIndex ? this.hooks.quotaTasks() : undefined;
    post(slot, {
      type: 'init',
      runtimeScript: this.options.runtimeScript,
      snapshotScript: this.options.snapshotScript,
      runtimeModules: this.options.runtimeModules,
      ...(this.options.runtimeMaps !== undefined ? { runtimeMaps: this.options.runtimeMaps } : {}),
      limits: this.options.limits,
      isolateBudgetMb,
      egress: this.options.egress,
      priority,
      ...(this.options.schedIdleCommand !== undefined ? { schedIdleCommand: this.options.schedIdleCommand } : {}),
      ...(quotaTasks !== undefined ? { offenderCpuQuotaTasks: quotaTasks } : {}),
    });
    if (this.apiEndpoint !== null) post(slot, { type: 'configure', apiEndpoint: this.apiEndpoint });
    for (const [integration, pinned] of this.routing.pins) {
      const bundle = this.routing.bundles.get(integration);
      if (pinned === index && bundle) post(slot, registerMessage(integration, bundle));
    }
    return slot;
  }

  private onExit(slot: Slot, code: number | null, signal: NodeJS.Signals | null): void {
    if (slot.stopping || this.stopped || this.routing.slots.get(slot.index) !== slot) return;
    slot.markReady();
    this.options.onCount?.('worker_restart');
    const how = signal ? `signal ${signal}` : `exit code ${code}`;
    // Everyone at work on it: dispatches in flight and waitUntil work after a response.
    const suspects = new Set([...[...slot.pending.values()].map((pending) => pending.integration), ...slot.draining]);
    this.options.onNotice(
      'error',
      `sandbox worker ${slot.index} died (${how}) with ${slot.pending.size} request(s) in ` +
        `flight${suspects.size ? ` and ${[...suspects].join(', ')} at work` : ''}; restarting it`,
    );
    for (const id of [...slot.pending.keys()]) {
      takePending(slot, id)?.reject(
        new HostError('ERR_SANDBOX_CRASHED', 'the sandbox running this integration crashed while handling the request'),
      );
    }
    failBodies(slot, 'the sandbox running this integration crashed while it sent its response body');
    slot.draining.clear();
    this.placement.restarted(slot.index);
    if (!this.hooks.onCrash(slot, suspects)) {
      this.routing.slots.delete(slot.index);
      return;
    }
    this.start(slot.index);
  }
}

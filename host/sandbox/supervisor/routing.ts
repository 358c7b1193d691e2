// Which worker runs which integration: the worker table, the pins and bundles, where each kind of
// worker sits, and moving an integration from one worker to another. It never spawns or stops a
// worker, and never decides who moves where (the offender ladder and the dispatch steps do).

import type { ToWorker } from '../messages.ts';
import { post, type Slot } from '../worker-slot.ts';
import type { SandboxBundle } from './options.ts';

export function registerMessage(integration: string, bundle: SandboxBundle): ToWorker {
  return {
    type: 'register',
    integration,
    bundleCode: bundle.code,
    bundleHash: bundle.hash,
    ...(bundle.map !== undefined ? { bundleMap: bundle.map } : {}),
  };
}

export class Routing {
  /**
   * Regular workers 0..n-1, the offenders' worker n (nice 19), the SCHED_IDLE worker n+1, then
   * solitary workers (created on demand). Without demotion, solitary workers follow the regular ones.
   */
  readonly slots = new Map<number, Slot>();
  readonly pins = new Map<string, number>();
  readonly bundles = new Map<string, SandboxBundle>();
  readonly regularCount: number;
  /** The index of the low-priority (nice 19) worker for offenders, if there is one. */
  readonly offenderWorker: number | undefined;
  /** Where the SCHED_IDLE worker sits when demotion is on (whether or not it could be lowered). */
  readonly schedIdleIndex: number | undefined;
  /** Where the first solitary worker sits. */
  readonly firstSolitaryIndex: number;

  constructor(workers: number, demoteOffenders: boolean) {
    this.regularCount = Math.max(1, workers);
    this.offenderWorker = demoteOffenders ? this.regularCount : undefined;
    this.schedIdleIndex = demoteOffenders ? this.regularCount + 1 : undefined;
    this.firstSolitaryIndex = this.regularCount + (demoteOffenders ? 2 : 0);
  }

  /** Keeps the bundle, pins the integration to the least loaded regular worker (once) and sends the bundle there. */
  register(integration: string, bundle: SandboxBundle): void {
    this.bundles.set(integration, {
      code: bundle.code,
      hash: bundle.hash,
      ...(bundle.map !== undefined ? { map: bundle.map } : {}),
    });
    let index = this.pins.get(integration);
    if (index === undefined) {
      index = this.leastLoadedRegular();
      this.pins.set(integration, index);
    }
    this.send(index, registerMessage(integration, bundle));
  }

  /** Forgets the integration: its worker retires its isolate once what is in flight finished. */
  unregister(integration: string): void {
    const index = this.pins.get(integration);
    this.bundles.delete(integration);
    this.pins.delete(integration);
    if (index === undefined) return;
    this.slots.get(index)?.heldEnvironments.forgetIntegration(integration);
    this.send(index, { type: 'unregister', integration });
  }

  /** Worker process ids in worker order (solitary workers last), for tests and diagnostics. */
  workerPids(): number[] {
    return [...this.slots.entries()].sort(([a], [b]) => a - b).map(([, slot]) => slot.child.pid ?? -1);
  }

  /** The process id of worker `index` (-1 when there is none). */
  workerPid(index: number): number {
    return this.slots.get(index)?.child.pid ?? -1;
  }

  workerOf(integration: string): number | undefined {
    return this.pins.get(integration);
  }

  /** Dispatches in flight on every worker (setup events included), or of one integration; for tests and diagnostics. */
  inFlightCount(integration?: string): number {
    let count = 0;
    for (const slot of this.slots.values()) {
      for (const pending of slot.pending.values())
        if (integration === undefined || pending.integration === integration) count++;
    }
    return count;
  }

  inFlight(worker: number, integration: string): boolean {
    for (const pending of this.slots.get(worker)?.pending.values() ?? [])
      if (pending.integration === integration) return true;
    return false;
  }

  slotOf(integration: string): Slot | undefined {
    const index = this.pins.get(integration);
    return index === undefined ? undefined : this.slots.get(index);
  }

  send(index: number, message: ToWorker): void {
    const slot = this.slots.get(index);
    if (slot !== undefined) post(slot, message);
  }

  /** New and returning integrations go to the least loaded regular worker, never an offenders' one. */
  leastLoadedRegular(): number {
    const load = Array.from({ length: this.regularCount }, () => 0);
    for (const pinned of this.pins.values()) if (pinned < this.regularCount) load[pinned]++;
    return load.indexOf(Math.min(...load));
  }

  /** Re-pins an integration: its next dispatches run on `target`; what is in flight finishes where it is. */
  move(integration: string, target: number): void {
    const bundle = this.bundles.get(integration);
    const from = this.pins.get(integration);
    if (bundle === undefined || from === target) return;
    this.pins.set(integration, target);
    if (from !== undefined) {
      this.slots.get(from)?.heldEnvironments.forgetIntegration(integration);
      this.send(from, { type: 'unregister', integration });
    }
    this.send(target, registerMessage(integration, bundle));
  }
}

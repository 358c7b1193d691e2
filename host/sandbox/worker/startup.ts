// What a worker builds from its init message before its first dispatch: the runtime's startup
// snapshot, the warm pool and the bundle precompiler. It builds them only: when they work (busy,
// quiet, room in the budget) is asked of the worker through `WhenToWork`.

import { BundlePrecompiler } from '../bundle-precompiler.ts';
import type { RuntimeSource } from '../isolate.ts';
import { IsolatePool } from '../isolate-pool.ts';
import type { WorkerInit } from '../messages.ts';
import { prepareRealm } from '../realm.ts';
import { createRuntimeSnapshot } from '../runtime-snapshot.ts';
import { lowered } from './lowering.ts';
import type { SendToSupervisor } from './send.ts';

/** What background work asks of the worker before it runs. */
export interface WhenToWork {
  /** Whether a dispatch of this worker is under way: background work (pool refills, precompiles) waits. */
  busy(): boolean;
  /** What is left of the quiet window (quiet-window.ts). */
  quietWaitMs(): number;
}

/**
 * Every isolate of this worker starts from the runtime's snapshot, built here once (tens of ms).
 * Should isolated-vm refuse to build it, isolates run the runtime script instead, as before
 * snapshots: slower to start, the same realm.
 */
export function startupSnapshot(script: string, send: SendToSupervisor): { snapshot?: RuntimeSource['snapshot'] } {
  try {
    return { snapshot: createRuntimeSnapshot(script) };
  } catch (error) {
    send({
      type: 'log',
      integration: '(sandbox worker)',
      eventIds: [],
      level: 'warn',
      text: `the runtime snapshot could not be built, isolates start without it: ${(error as Error).message}`,
    });
    return {};
  }
}

/**
 * Bundles compiled ahead, while no dispatch waits. On the offenders' workers also only once quiet
 * (quietWaitMs): there the compiling isolate's synchronous creation holds the thread that fires
 * deadlines and answers 504s, and compiling at once made a moved integration's next request wait
 * (docs/performance.md). Regular workers were not measured with the window.
 */
export function createPrecompiler(settings: WorkerInit, source: RuntimeSource, when: WhenToWork): BundlePrecompiler {
  return new BundlePrecompiler({
    snapshot: source.snapshot,
    memoryLimitMb: settings.limits.memoryLimitMb,
    busy: when.busy,
    ...(lowered(settings) ? { waitMs: when.quietWaitMs } : {}),
  });
}

/**
 * The warm pool: `limits.warmIsolatesPerWorker` realms, with the same memory limit as every
 * isolate, counted against this worker's budget, refilled as soon as no dispatch waits when empty
 * and once the worker is quiet while a realm is still ready. Works
 * from the snapshot or, without one, from the runtime script.
 */
export function createPool(
  settings: WorkerInit,
  source: RuntimeSource,
  when: WhenToWork & { hasRoom(bytes: number): boolean },
  send: SendToSupervisor,
): IsolatePool {
  return new IsolatePool({
    size: settings.limits.warmIsolatesPerWorker,
    prepare: () => prepareRealm(source, settings.limits.memoryLimitMb, { warm: true }),
    busy: when.busy,
    waitMs: when.quietWaitMs,
    hasRoom: when.hasRoom,
    warn: (text) => send({ type: 'log', integration: '(sandbox worker)', eventIds: [], level: 'warn', text }),
  });
}

// Samples this worker's busy isolates for hogs (their execution time in the busy period) and reports
// them; the same tick looks for threads to lower. It never disposes nor moves an isolate: the
// supervisor decides what a hog report costs.

import type { IntegrationIsolate } from '../isolate.ts';
import type { WorkerInit } from '../messages.ts';
import type { SendToSupervisor } from './send.ts';

/** How often busy isolates are sampled for hogs (their execution time in the busy period). */
const HOG_SAMPLE_MS = 100;

export function startHogSampler(
  settings: () => WorkerInit | null,
  isolates: ReadonlyMap<string, IntegrationIsolate>,
  lookAtThreads: () => void,
  send: SendToSupervisor,
): void {
  // Neighbours first: an integration that keeps executing is reported while its work still runs,
  // so the supervisor moves its next dispatches off this worker before any deadline passes.
  // The same tick looks for threads made by work no hook saw (timers' watchdogs, the pool's refills).
  setInterval(() => {
    const init = settings();
    if (init === null) return;
    lookAtThreads();
    for (const [integration, isolate] of isolates) {
      const cpuMs = isolate.takeHogReport(init.limits.hogCpuMs);
      if (cpuMs !== null) send({ type: 'hog', integration, cpuMs });
    }
  }, HOG_SAMPLE_MS).unref();
}

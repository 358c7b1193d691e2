// Truly cold starts, memory per live isolate, and many integrations. Every host here starts on a
// database prepared beforehand (hosts.ts), so no setup event has created any isolate: the first
// request to an integration pays for creating its isolate, as it would after a host restart.
// Requests go one at a time over one kept-alive node:http connection (load.ts sequentialClient).

import { residentMb } from './children.ts';
import { PACED_PREFIX } from './generate.ts';
import { prepareData, withHost } from './hosts.ts';
import { sequentialClient } from './load.ts';
import { percentile, round } from './stats.ts';

/**
 * The quiet time before each paced cold request: long enough for each worker's warm pool to be
 * full again (a refill is ~6 ms of wall time, begun once the worker was quiet for 5 ms) and its
 * other background work (bundle precompiles) done, so the request meets an idle host.
 */
export const PACED_GAP_MS = 50;

/** Waits until the processes' resident memory changes by less than 1 % over 500 ms (at most 10 s). */
async function settledResidentMb(pids: number[]): Promise<number> {
  let previous = residentMb(pids);
  for (let attempt = 0; attempt < 20; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const now = residentMb(pids);
    if (Math.abs(now - previous) < previous * 0.01) return now;
    previous = now;
  }
  return previous;
}

/** Requests each endpoint once, in order: back to back, or `gapMs` after the previous answer. */
async function pass(endpoints: string[], gapMs = 0): Promise<{ samples: number[]; failures: number }> {
  const samples: number[] = [];
  let failures = 0;
  const client = sequentialClient();
  try {
    for (const url of endpoints) {
      if (gapMs > 0) await new Promise((resolve) => setTimeout(resolve, gapMs));
      const { ms, status } = await client.request(url);
      if (status === 200) samples.push(ms);
      else failures++;
    }
  } finally {
    client.close();
  }
  return { samples, failures };
}

/** Whether an endpoint belongs to a paced integration (generate.ts `paced`). */
const isPaced = (url: string): boolean => url.includes(`/v1/integrations/${PACED_PREFIX}-`);

export interface StartupFigures {
  integrations: number;
  /** The cold requests back to back (each integration's first, one after the other's answer). */
  coldStartMs: { p50: number; p99: number };
  /**
   * The paced integrations' cold requests, each PACED_GAP_MS after the previous answer (the host
   * idle, its warm pools full), requested after the memory reading; absent without paced ones.
   */
  coldStartPacedMs?: { p50: number; p99: number; integrations: number; gapMs: number };
  /** (resident after − before) ÷ integrations, all of them live, measured once memory settled. */
  memoryPerLiveIsolateMb: number;
  residentMb: number;
  /** Later passes over every integration in the same order (least recently used first). */
  cycledMs?: { p50: number; p99: number; passes: number };
  failures: number;
}

/**
 * Starts a host over `fixtures` on prepared data and requests every integration once (truly cold),
 * then `cycles` more times in the same order. `hostOptions` may raise the live-isolate limits so
 * that every integration stays live for the memory figure.
 */
export async function measureStartup(
  fixtures: string,
  options: { cycles: number; hostOptions?: object },
): Promise<StartupFigures> {
  const prepared = await prepareData(fixtures);
  try {
    return await withHost(
      fixtures,
      { workers: 2, dataPath: prepared.dataPath, cacheDir: prepared.cacheDir, ...options.hostOptions },
      async (host) => {
        const all = Object.values(host.endpoints);
        const endpoints = all.filter((url) => !isPaced(url));
        const pacedEndpoints = all.filter(isPaced);
        const before = await settledResidentMb(host.pids);
        const cold = await pass(endpoints);
        const after = await settledResidentMb(host.pids);
        const paced = pacedEndpoints.length > 0 ? await pass(pacedEndpoints, PACED_GAP_MS) : undefined;
        const cycled: number[] = [];
        let failures = cold.failures + (paced?.failures ?? 0);
        for (let cycle = 0; cycle < options.cycles; cycle++) {
          const result = await pass(endpoints);
          cycled.push(...result.samples);
          failures += result.failures;
        }
        return {
          integrations: endpoints.length,
          coldStartMs: { p50: round(percentile(cold.samples, 50)), p99: round(percentile(cold.samples, 99)) },
          ...(paced !== undefined
            ? {
                coldStartPacedMs: {
                  p50: round(percentile(paced.samples, 50)),
                  p99: round(percentile(paced.samples, 99)),
                  integrations: pacedEndpoints.length,
                  gapMs: PACED_GAP_MS,
                },
              }
            : {}),
          memoryPerLiveIsolateMb: round((after - before) / Math.max(1, cold.samples.length)),
          residentMb: round(residentMb(host.pids), 0),
          ...(options.cycles > 0
            ? {
                cycledMs: {
                  p50: round(percentile(cycled, 50)),
                  p99: round(percentile(cycled, 99)),
                  passes: options.cycles,
                },
              }
            : {}),
          failures,
        };
      },
    );
  } finally {
    prepared.dispose();
  }
}

// Truly cold starts, memory per live isolate, and many integrations. Every host here starts on a
// database prepared beforehand (hosts.ts), so no setup event has created any isolate: the first
// request to an integration pays for creating its isolate, as it would after a host restart.

import { residentMb } from './children.ts';
import { prepareData, withHost } from './hosts.ts';
import { timedRequest } from './load.ts';
import { percentile, round } from './stats.ts';

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

async function pass(endpoints: string[]): Promise<{ samples: number[]; failures: number }> {
  const samples: number[] = [];
  let failures = 0;
  for (const url of endpoints) {
    const { ms, status } = await timedRequest(url);
    if (status === 200) samples.push(ms);
    else failures++;
  }
  return { samples, failures };
}

export interface StartupFigures {
  integrations: number;
  coldStartMs: { p50: number; p99: number };
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
export async function measureStartup(fixtures: string, options: { cycles: number; hostOptions?: object }): Promise<StartupFigures> {
  const prepared = await prepareData(fixtures);
  try {
    return await withHost(fixtures, { workers: 2, dataPath: prepared.dataPath, cacheDir: prepared.cacheDir, ...options.hostOptions }, async (host) => {
      const endpoints = Object.values(host.endpoints);
      const before = await settledResidentMb(host.pids);
      const cold = await pass(endpoints);
      const after = await settledResidentMb(host.pids);
      const cycled: number[] = [];
      let failures = cold.failures;
      for (let cycle = 0; cycle < options.cycles; cycle++) {
        const result = await pass(endpoints);
        cycled.push(...result.samples);
        failures += result.failures;
      }
      return {
        integrations: endpoints.length,
        coldStartMs: { p50: round(percentile(cold.samples, 50)), p99: round(percentile(cold.samples, 99)) },
        memoryPerLiveIsolateMb: round((after - before) / Math.max(1, cold.samples.length)),
        residentMb: round(residentMb(host.pids), 0),
        ...(options.cycles > 0 ? { cycledMs: { p50: round(percentile(cycled, 50)), p99: round(percentile(cycled, 99)), passes: options.cycles } } : {}),
        failures,
      };
    });
  } finally {
    prepared.dispose();
  }
}

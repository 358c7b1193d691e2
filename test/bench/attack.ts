// Hostile neighbours: how late a timeout answers, and what attackers cost a well-behaved
// integration while they really run. The breaker and quarantine are set out of reach here, so the
// attackers keep spinning and allocating instead of being answered with cheap 503s; how many of
// their requests ended in 504 (deadline), 502 (memory kill) or 503 (paused) is reported beside it.

import { generateFixtures } from './generate.ts';
import { BENCH_ADMIN_TOKEN, withHost } from './hosts.ts';
import { runLoad, sequentialClient, timedRequest } from './load.ts';
import { median, percentile, round } from './stats.ts';
import { rmSync } from 'node:fs';

/** Limits that keep an attacker running: no pause after repeated timeouts, no quarantine after memory kills. */
const NO_BREAKER = { timeoutsBeforeCooldown: 1_000_000, crashesBeforeQuarantine: 1_000_000 };

export interface OverrunFigures {
  /** Median of (answer time − deadline) over requests that really timed out (504). */
  medianMs: number;
  samplesMs: number[];
  statuses: Record<number, number>;
}

export async function measureTimeoutOverrun(samples = 9, deadlineMs = 100): Promise<OverrunFigures> {
  const fixtures = generateFixtures({ trivial: 0, spinners: 1 });
  try {
    return await withHost(
      fixtures,
      { workers: 2, limits: { dispatchTimeoutMs: deadlineMs, ...NO_BREAKER } },
      async (host) => {
        const url = host.endpoints['spin-0'];
        // node:http over one kept-alive connection, as the startup pass: `fetch`'s own work in this
        // process (about 0.35 ms per request) would be counted as the host's overrun.
        const client = sequentialClient();
        try {
          await client.request(url); // the first also creates the isolate (inside its deadline) and demotes the spinner
          const overruns: number[] = [];
          const statuses: Record<number, number> = {};
          for (let i = 0; i < samples; i++) {
            const { ms, status } = await client.request(url);
            statuses[status] = (statuses[status] ?? 0) + 1;
            if (status === 504) overruns.push(round(ms - deadlineMs));
          }
          return { medianMs: round(median(overruns)), samplesMs: overruns, statuses };
        } finally {
          client.close();
        }
      },
    );
  } finally {
    rmSync(fixtures, { recursive: true, force: true });
  }
}

export interface NeighbourFigures {
  quiet: number;
  underAttack: number;
  /** Status → count of the attackers' requests while they ran. */
  attackerStatuses: Record<number, number>;
  quietRounds: number[];
  underAttackRounds: number[];
  /**
   * Where the attackers ran, from the host's own counters once the rounds are over: moves to the
   * nice-19 worker, on to the SCHED_IDLE one, and back from it because it starved (all attackers).
   */
  attackerMoves: { demotions: number; schedIdleDemotions: number; schedIdleReturns: number };
}

const ATTACKERS = ['spin-0', 'spin-1', 'allocate-0', 'allocate-1'];

/** Sums a per-integration counter of the host's /metrics text over the attackers. */
function sumCounter(metrics: string, name: string): number {
  let total = 0;
  for (const line of metrics.split('\n')) {
    const match = /^(\w+)\{integration="([^"]*)"\} (\d+)$/.exec(line);
    if (match !== null && match[1] === name && ATTACKERS.includes(match[2])) total += Number(match[3]);
  }
  return total;
}

/**
 * A well-behaved integration under load (4 connections), in rounds alternating quiet / under
 * attack by 2 spinners and 2 allocators; p99 latency per round, medians reported.
 */
export async function measureNeighbour(rounds: number, roundMs: number): Promise<NeighbourFigures> {
  const fixtures = generateFixtures({ trivial: 1, spinners: 2, allocators: 2 });
  try {
    return await withHost(
      fixtures,
      { workers: 2, limits: { dispatchTimeoutMs: 1_000, memoryLimitMb: 64, ...NO_BREAKER } },
      async (host) => {
        const url = host.endpoints['bench-0000'];
        const attackers = ATTACKERS.map((name) => host.endpoints[name]);
        await runLoad({ url, concurrency: 4, durationMs: 1_000 });
        const quiet: number[] = [];
        const underAttack: number[] = [];
        const attackerStatuses: Record<number, number> = {};
        for (let i = 0; i < rounds; i++) {
          quiet.push(percentile((await runLoad({ url, concurrency: 4, durationMs: roundMs })).latenciesMs, 99));
          let attacking = true;
          const attack = Promise.all(
            attackers.map(async (attackUrl) => {
              while (attacking) {
                const { status } = await timedRequest(attackUrl);
                if (attacking) attackerStatuses[status] = (attackerStatuses[status] ?? 0) + 1;
              }
            }),
          );
          await new Promise((resolve) => setTimeout(resolve, 300));
          underAttack.push(percentile((await runLoad({ url, concurrency: 4, durationMs: roundMs })).latenciesMs, 99));
          attacking = false;
          await attack; // each attacker's last request ends by its deadline
        }
        const metrics = await (
          await fetch(`${host.url}/metrics`, { headers: { authorization: `Bearer ${BENCH_ADMIN_TOKEN}` } })
        ).text();
        return {
          quiet: round(median(quiet)),
          underAttack: round(median(underAttack)),
          attackerStatuses,
          quietRounds: quiet.map((v) => round(v)),
          underAttackRounds: underAttack.map((v) => round(v)),
          attackerMoves: {
            demotions: sumCounter(metrics, 'integration_host_demotions_total'),
            schedIdleDemotions: sumCounter(metrics, 'integration_host_sched_idle_demotions_total'),
            schedIdleReturns: sumCounter(metrics, 'integration_host_sched_idle_returns_total'),
          },
        };
      },
    );
  } finally {
    rmSync(fixtures, { recursive: true, force: true });
  }
}

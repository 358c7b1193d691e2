// Hello world side by side: the host (sandboxed), plain Koa, the floor and workerd, measured in
// rounds that alternate between them (us, Koa, floor, workerd, us, …) in one run, so a busier or
// quieter machine moves them all alike. Each round: requests per second, latency, and CPU per request of the
// server's processes (all threads) from /proc, plus what the rest of the machine used meanwhile.

import { processCpuUs, machineBusyUs, waitQuiet } from './machine.ts';
import { runLoad } from './load.ts';
import { median, percentile, round } from './stats.ts';

export interface Server {
  name: string;
  url: string;
  pids: () => number[];
}

export interface RoundFigures {
  rps: number;
  cpuPerRequestUs: number;
  serverCores: number;
  loadGeneratorUsPerRequest: number;
  /** Cores the rest of the machine used during the round (other engineers' work, the kernel). */
  otherCores: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
}

export interface ServerFigures {
  rps: number;
  cpuPerRequestUs: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  rounds: RoundFigures[];
}

async function measureRound(server: Server, concurrency: number, durationMs: number): Promise<RoundFigures> {
  const pids = server.pids();
  const cpu0 = processCpuUs(pids);
  const self0 = process.cpuUsage();
  const machine0 = machineBusyUs();
  const result = await runLoad({ url: server.url, concurrency, durationMs });
  const serverUs = processCpuUs(pids) - cpu0;
  const self = process.cpuUsage(self0);
  const selfUs = self.user + self.system;
  const seconds = result.elapsedMs / 1000;
  const otherUs = machineBusyUs() - machine0 - serverUs - selfUs;
  const ok = Math.max(1, result.requests - result.errors);
  return {
    rps: result.rps,
    cpuPerRequestUs: serverUs / ok,
    serverCores: serverUs / 1e6 / seconds,
    loadGeneratorUsPerRequest: selfUs / ok,
    otherCores: Math.max(0, otherUs / 1e6 / seconds),
    p50Ms: percentile(result.latenciesMs, 50),
    p99Ms: percentile(result.latenciesMs, 99),
    errors: result.errors,
  };
}

/**
 * `rounds` interleaved rounds of `durationMs` per server at `concurrency`, after a warm-up of each
 * (5 s unless `warmUpMs` says otherwise). A round during which the rest of the machine used more than `maxOtherCores`
 * is redone (once), so another engineer's test run does not decide the figure.
 */
export async function compareServers(
  servers: Server[],
  options: {
    concurrency: number;
    rounds: number;
    durationMs: number;
    warmUpMs?: number;
    maxOtherCores?: number;
    onRound?: (name: string, round: RoundFigures) => void;
  },
): Promise<Record<string, ServerFigures>> {
  // Long enough for the JIT to settle: a second of warm-up still left optimizing compilers busy.
  for (const server of servers)
    await runLoad({ url: server.url, concurrency: options.concurrency, durationMs: options.warmUpMs ?? 5_000 });
  const rounds = new Map<string, RoundFigures[]>(servers.map((server) => [server.name, []]));
  for (let index = 0; index < options.rounds; index++) {
    for (const server of servers) {
      let figures: RoundFigures;
      for (let attempt = 0; ; attempt++) {
        await waitQuiet(0.15, 10_000);
        figures = await measureRound(server, options.concurrency, options.durationMs);
        if (figures.otherCores <= (options.maxOtherCores ?? 0.25) || attempt >= 1) break;
      }
      rounds.get(server.name)!.push(figures);
      options.onRound?.(server.name, figures);
    }
  }
  const summary: Record<string, ServerFigures> = {};
  for (const [name, list] of rounds) {
    summary[name] = {
      rps: round(median(list.map((r) => r.rps)), 0),
      cpuPerRequestUs: round(median(list.map((r) => r.cpuPerRequestUs)), 1),
      p50Ms: round(median(list.map((r) => r.p50Ms))),
      p99Ms: round(median(list.map((r) => r.p99Ms))),
      errors: list.reduce((sum, r) => sum + r.errors, 0),
      rounds: list,
    };
  }
  return summary;
}

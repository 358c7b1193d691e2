// The streaming figure of `npm run bench`: a 50 MB body passed through an integration (`fetch`
// upstream → `new Response(upstream.body)`), and the same body read chunk by chunk in the isolate
// on its way (piped through a TransformStream), beside workerd doing the first. Per round and
// server: MB/s as the client reads it, and how far the server's processes' resident memory rose
// above where it stood before (sampled while the body flows). Rounds interleaved; never asserts.

import http from 'node:http';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { residentMb, startChild } from './children.ts';
import { startHost } from './hosts.ts';
import { median, round } from './stats.ts';
import { startWorkerd, type WorkerdServer } from './workerd.ts';

const MB = 1024 * 1024;

/** Passes the upstream's body on untouched (the host sends it without the isolate reading it). */
const PASS = `import { createIntegration } from 'sandbox-api';
export default createIntegration({
  async fetch(request) {
    const upstream = await fetch(new URL(request.url).searchParams.get('upstream') ?? '');
    return new Response(upstream.body, { headers: { 'content-type': 'application/octet-stream' } });
  },
});
`;

/** Reads every chunk in the isolate on its way: the body crosses in and out of the isolate. */
const THROUGH = `import { createIntegration } from 'sandbox-api';
export default createIntegration({
  async fetch(request) {
    const upstream = await fetch(new URL(request.url).searchParams.get('upstream') ?? '');
    return new Response(upstream.body!.pipeThrough(new TransformStream()), { headers: {
      'content-type': 'application/octet-stream' } });
  },
});
`;

const WORKERD_PASS = `export default {
  async fetch(request) {
    const target = new URL(request.url).searchParams.get('upstream');
    if (target === null) return new Response('ok', { headers: { 'content-type': 'text/plain;charset=UTF-8' } });
    const upstream = await fetch(target);
    return new Response(upstream.body, { headers: { 'content-type': 'application/octet-stream' } });
  },
};
`;

export interface StreamingRound {
  mbPerSec: number;
  memoryGrowthMb: number;
}

export interface StreamingFigures {
  megabytes: number;
  /** Per server ('pass', 'through', 'workerd'): the medians over the rounds, and each round. */
  servers: Record<string, { mbPerSec: number; memoryGrowthMb: number; rounds: StreamingRound[]; failures: number }>;
  workerd: { version: string } | { unavailable: string };
}

function fixtures(): string {
  const root = mkdtempSync(join(tmpdir(), 'ih-bench-stream-'));
  for (const [name, script] of [
    ['stream-pass', PASS],
    ['stream-through', THROUGH],
  ]) {
    mkdirSync(join(root, name));
    writeFileSync(
      join(root, name, 'platform-manifest.yaml'),
      `name: ${name}\ntitle: ${name}\ndescription: benchmark fixture\norganization: acme\nvisibility: ` +
        `public\nscopes: []\nscript: index.ts\n`,
    );
    writeFileSync(join(root, name, 'index.ts'), script);
  }
  return root;
}

/** Downloads `url` whole, discarding it; its bytes and the seconds it took. */
function download(url: string): Promise<{ bytes: number; seconds: number; status: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const request = http.get(url, (response) => {
      let bytes = 0;
      response.on('data', (chunk: Buffer) => (bytes += chunk.length));
      response.on('end', () =>
        resolve({ bytes, seconds: (performance.now() - started) / 1000, status: response.statusCode ?? 0 }),
      );
      response.on('error', reject);
      response.on('aborted', () => reject(new Error('the body was cut off')));
    });
    request.on('error', reject);
  });
}

/** One transfer: its speed, and the server's resident memory's rise above where it stood before. */
async function measureRound(url: string, pids: number[], bytes: number): Promise<StreamingRound | null> {
  const before = residentMb(pids);
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, residentMb(pids))), 20);
  try {
    const result = await download(url);
    peak = Math.max(peak, residentMb(pids));
    if (result.status !== 200 || result.bytes !== bytes) return null;
    return { mbPerSec: round(result.bytes / MB / result.seconds, 1), memoryGrowthMb: round(peak - before, 1) };
  } catch {
    return null;
  } finally {
    clearInterval(sampler);
  }
}

export async function measureStreaming(options: {
  rounds: number;
  megabytes: number;
  workerd: boolean;
}): Promise<StreamingFigures> {
  const bytes = options.megabytes * MB;
  const root = fixtures();
  const started: { stop(): Promise<void> }[] = [];
  try {
    const upstream = await startChild<{ url: string; pids: number[] }>('./upstream-child.ts');
    started.push(upstream);
    const upstreamPort = new URL(upstream.info.url).port;
    const limit = (options.megabytes + 8) * MB;
    const host = await startHost(root, {
      workers: 2,
      allowEgress: [`127.0.0.1:${upstreamPort}`],
      limits: { maxResponseBytes: limit, maxFetchResponseBytes: limit, streamTimeoutMs: 120_000 },
    });
    started.push(host);
    let workerd: WorkerdServer | null = null;
    let workerdInfo: StreamingFigures['workerd'] = { unavailable: 'skipped (--no-workerd)' };
    if (options.workerd) {
      try {
        workerd = await startWorkerd({ script: WORKERD_PASS, outboundToLoopback: true });
        started.push(workerd);
        workerdInfo = { version: workerd.version };
      } catch (error) {
        workerdInfo = { unavailable: (error as Error).message.split('\n')[0] };
      }
    }
    const target = `${upstream.info.url}/bytes/${bytes}`;
    const query = `?upstream=${encodeURIComponent(target)}`;
    const servers: [string, string, () => number[]][] = [
      ['pass', `${host.info.endpoints['stream-pass']}${query}`, () => host.info.pids],
      ['through', `${host.info.endpoints['stream-through']}${query}`, () => host.info.pids],
      ...(workerd !== null
        ? [['workerd', `${workerd.url}${query}`, () => [workerd!.pid]] as [string, string, () => number[]]]
        : []),
    ];
    // A warm-up transfer each (isolates started, connections and code paths exercised), not counted.
    for (const [, url] of servers) await download(url).catch(() => undefined);
    const rounds = new Map<string, { rounds: StreamingRound[]; failures: number }>(
      servers.map(([name]) => [name, { rounds: [], failures: 0 }]),
    );
    for (let round = 0; round < options.rounds; round++) {
      for (const [name, url, pids] of servers) {
        const measured = await measureRound(url, pids(), bytes);
        const entry = rounds.get(name)!;
        if (measured === null) entry.failures++;
        else entry.rounds.push(measured);
      }
    }
    const figures: StreamingFigures['servers'] = {};
    for (const [name, entry] of rounds) {
      figures[name] = {
        mbPerSec: entry.rounds.length > 0 ? round(median(entry.rounds.map((r) => r.mbPerSec)), 1) : 0,
        memoryGrowthMb: entry.rounds.length > 0 ? round(median(entry.rounds.map((r) => r.memoryGrowthMb)), 1) : 0,
        rounds: entry.rounds,
        failures: entry.failures,
      };
    }
    return { megabytes: options.megabytes, servers: figures, workerd: workerdInfo };
  } finally {
    for (const server of started.reverse()) await server.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

// A closed-loop HTTP load generator over keep-alive connections: `concurrency` callers each send
// the next request as soon as the previous answer arrives, for `durationMs`. Loopback only.
// Counts answers by status, so a figure built on cheap refusals (503) shows as such.

import http from 'node:http';

export interface LoadResult {
  requests: number;
  /** Answers with status ≥ 400 plus transport failures. */
  errors: number;
  rps: number;
  latenciesMs: number[];
  /** status code → answers; 0 counts transport failures. */
  statuses: Record<number, number>;
  elapsedMs: number;
}

export interface LoadOptions {
  url: string;
  method?: string;
  body?: string;
  concurrency: number;
  durationMs: number;
}

function once(agent: http.Agent, url: URL, method: string, body: string | undefined): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method,
        agent,
        headers: body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {},
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const url = new URL(options.url);
  const agent = new http.Agent({
    keepAlive: true,
    maxSockets: options.concurrency,
    maxFreeSockets: options.concurrency,
  });
  const latenciesMs: number[] = [];
  const statuses: Record<number, number> = {};
  let errors = 0;
  const deadline = performance.now() + options.durationMs;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        let status = 0;
        try {
          status = await once(agent, url, options.method ?? 'GET', options.body);
        } catch {
          status = 0;
        }
        if (status === 0 || status >= 400) errors++;
        statuses[status] = (statuses[status] ?? 0) + 1;
        latenciesMs.push(performance.now() - t0);
      }
    }),
  );
  const elapsedMs = performance.now() - started;
  agent.destroy();
  return {
    requests: latenciesMs.length,
    errors,
    rps: (latenciesMs.length / elapsedMs) * 1000,
    latenciesMs,
    statuses,
    elapsedMs,
  };
}

/**
 * Sequential single requests over one kept-alive connection with node:http, the client runLoad
 * uses: for latency figures of one request at a time (cold starts), where `fetch`'s own work in
 * this process (undici's Request, Response and body stream: about 0.35 ms per request on the
 * bench machine, docs/performance.md) would be counted as the server's.
 */
export function sequentialClient(): { request(url: string): Promise<{ ms: number; status: number }>; close(): void } {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  return {
    request: (url) => {
      const started = performance.now();
      return once(agent, new URL(url), 'GET', undefined).then(
        (status) => ({ ms: performance.now() - started, status }),
        () => ({ ms: performance.now() - started, status: 0 }),
      );
    },
    close: () => agent.destroy(),
  };
}

/** One request with `fetch`; its latency in ms and status (0 for a transport failure). */
export async function timedRequest(url: string): Promise<{ ms: number; status: number }> {
  const started = performance.now();
  try {
    const response = await fetch(url);
    await response.arrayBuffer();
    return { ms: performance.now() - started, status: response.status };
  } catch {
    return { ms: performance.now() - started, status: 0 };
  }
}

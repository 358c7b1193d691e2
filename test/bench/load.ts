// A closed-loop HTTP load generator over keep-alive connections: `concurrency` callers each send
// the next request as soon as the previous answer arrives, for `durationMs`. Loopback only.

import http from 'node:http';

export interface LoadResult {
  requests: number;
  errors: number;
  rps: number;
  latenciesMs: number[];
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
    const request = http.request(url, { method, agent, headers: body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {} }, (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode ?? 0));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(body);
  });
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const url = new URL(options.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.concurrency });
  const latenciesMs: number[] = [];
  let errors = 0;
  const deadline = performance.now() + options.durationMs;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        try {
          const status = await once(agent, url, options.method ?? 'GET', options.body);
          if (status >= 400) errors++;
        } catch {
          errors++;
        }
        latenciesMs.push(performance.now() - t0);
      }
    }),
  );
  const elapsed = performance.now() - started;
  agent.destroy();
  return { requests: latenciesMs.length, errors, rps: (latenciesMs.length / elapsed) * 1000, latenciesMs };
}

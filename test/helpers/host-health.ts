// The one "the host survived" check of the security suite: the host still serves /health, every
// sandbox worker slot holds a live process, and the neighbour integration `hello` (which must be
// loaded) still answers its POST with {"received":true}. Every security test ends with it.

import { expect } from 'vitest';
import { endpointOf, type TestHost } from './host.ts';

/** Sends the neighbour's health check: POST to hello's public endpoint. */
export async function neighbourAnswers(host: TestHost): Promise<{ status: number; body: unknown; ms: number }> {
  const started = performance.now();
  const response = await fetch(endpointOf(host, 'hello'), { method: 'POST' });
  const body = await response.json().catch(() => null);
  return { status: response.status, body, ms: performance.now() - started };
}

export async function expectHostHealthy(host: TestHost): Promise<void> {
  const health = await fetch(`${host.url}/health`);
  expect(health.status).toBe(200);
  expect(await health.json()).toEqual({ status: 'ok' });
  for (const pid of host.supervisor.workerPids())
    expect(pid, 'a sandbox worker slot without a process').toBeGreaterThan(0);
  const neighbour = await neighbourAnswers(host);
  expect(neighbour.status).toBe(200);
  expect(neighbour.body).toEqual({ received: true });
}

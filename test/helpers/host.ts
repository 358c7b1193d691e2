// Boots the real host in-process for tests: loopback, port 0, in-memory store, a memory logger,
// two sandbox workers. Callers must close() it.

import { createHost, type Host } from '../../host/index.ts';
import { createMemoryLogger } from '../../host/common/logger.ts';
import type { HostOptionsInput, HostTestHooks } from '../../host/config/options.ts';
import type { EventLogEntry } from '../../host/dispatch/event-log.ts';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';

export interface TestHost extends Host {
  logs: string[];
  admin(path: string, init?: RequestInit): Promise<Response>;
}

const HOOKS = [
  'egressResolve',
  'onEgressConnect',
  'schedIdleCommand',
  'cpuCgroupMount',
  'machineSaturated',
  'schedIdleStarved',
  'sharedQueuePollMs',
] as const;

/** Host options, with the test hooks (HostTestHooks) allowed beside them for brevity. */
export type TestHostOptions = HostOptionsInput & HostTestHooks;

export async function startTestHost(given: TestHostOptions = {}): Promise<TestHost> {
  const logger = createMemoryLogger();
  const options: HostOptionsInput = { ...given };
  const testHooks: HostTestHooks = { ...given.testHooks };
  for (const hook of HOOKS) {
    if (given[hook] === undefined) continue;
    Object.assign(testHooks, { [hook]: given[hook] });
    delete (options as Record<string, unknown>)[hook];
  }
  const host = await createHost({
    port: 0,
    dataPath: ':memory:',
    workers: 2,
    adminToken: ADMIN_TOKEN,
    logger,
    env: { ...process.env },
    ...options,
    testHooks,
  });
  // The dev installations' setup events run after createHost returns; a test that reasons about
  // what is in flight (crash attribution, demotion) starts once they are done.
  await waitFor(() => host.supervisor.inFlightCount() === 0, 30_000).catch(() => undefined);
  return Object.assign(host, {
    logs: logger.lines,
    admin(path: string, init: RequestInit = {}) {
      const headers = new Headers(init.headers);
      headers.set('authorization', `Bearer ${ADMIN_TOKEN}`);
      if (init.body !== undefined && !headers.has('content-type')) headers.set('content-type', 'application/json');
      return fetch(`${host.url}${path}`, { ...init, headers });
    },
  });
}

/** The public endpoint of the dev installation of `integration`. */
export function endpointOf(host: Host, integration: string): string {
  const entry = host.devInstallations.find((dev) => dev.integration === integration);
  if (!entry?.installation) throw new Error(`no dev installation of ${integration}`);
  return entry.installation.urls.publicEndpoint;
}

export function installationOf(host: Host, integration: string): string {
  const entry = host.devInstallations.find((dev) => dev.integration === integration);
  if (!entry?.installation) throw new Error(`no dev installation of ${integration}`);
  return entry.installation.id;
}

/**
 * Waits until `predicate` holds, polling; fails after `timeoutMs`. The bound only turns a condition
 * that never comes into a failure instead of a hang: it is generous, since a busy machine is slow.
 */
export async function waitFor(predicate: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const started = Date.now();
  while (!(await predicate())) {
    if (Date.now() - started > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * The newest event-log entry of `integration`. Its durationMs is the sandbox worker's own measure
 * of the dispatch (for failures too), so deadline tests read it instead of timing the HTTP round
 * trip, which a busy machine stretches for reasons that have nothing to do with the deadline.
 */
export async function newestEvent(host: Host, integration: string): Promise<EventLogEntry> {
  const [newest] = (await host.services.listEvents(integration, { limit: 1 })).items;
  if (newest === undefined) throw new Error(`no event logged for ${integration}`);
  return newest;
}

/**
 * Runs a request that starts the integration's isolate and checks it answered `status`, so a
 * following request with a deadline does not count isolate start-up (which a busy machine slows).
 */
export async function warmUp(url: string, init: RequestInit = {}, status = 200): Promise<void> {
  const response = await fetch(url, init);
  await response.arrayBuffer();
  if (response.status !== status) throw new Error(`warm-up of ${url} answered ${response.status}, not ${status}`);
}

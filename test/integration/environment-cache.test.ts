// A worker keeps one environment text per integration and installation, and the supervisor sends
// an environment only when that worker does not hold it already. An older environment object
// dispatched after a newer one replaces the worker's text, so the newer one must travel again the
// next time: every dispatch sees exactly the environment it was given.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHost, type TestHost } from '../helpers/host.ts';

let host: TestHost;

beforeAll(async () => {
  host = await startTestHost({ dirs: ['fixtures/hostile/global-rebinding'], autoInstall: false });
});
afterAll(() => host?.close());

let sequence = 0;
async function installationSeen(environment: Record<string, unknown>): Promise<string> {
  const eventId = `evt_environment_cache_${sequence++}`;
  const url = 'http://127.0.0.1/environment-cache';
  const outcome = await host.supervisor.dispatch('global-rebinding', {
    event: { eventId, type: 'fetch', installationId: 'inst_environment_cache', request: { method: 'POST', url, headers: [] } },
    environment,
    fetchBody: new TextEncoder().encode('body'),
  });
  expect(outcome.response.status).toBe(200);
  return (JSON.parse(new TextDecoder().decode(outcome.response.body)) as { installation: string }).installation;
}

describe('environments cached in a worker', () => {
  it('give every dispatch the environment it was given, also when an older one is dispatched after a newer one', async () => {
    const older = { installation: { id: 'inst_older_version' }, secrets: {} };
    const newer = { installation: { id: 'inst_newer_version' }, secrets: {} };
    expect(await installationSeen(newer)).toBe('inst_newer_version');
    expect(await installationSeen(newer)).toBe('inst_newer_version');
    expect(await installationSeen(older)).toBe('inst_older_version');
    expect(await installationSeen(newer)).toBe('inst_newer_version');
  });
});

// A worker keeps one environment text per integration and installation, and the supervisor sends
// an environment only when that worker does not hold it already. An older environment object
// dispatched after a newer one replaces the worker's text, so the newer one must travel again the
// next time: every dispatch sees exactly the environment it was given.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHost, type TestHost } from '../helpers/host.ts';
import { MAX_HELD_ENVIRONMENTS } from '../../host/sandbox/held-environments.ts';

let host: TestHost;

beforeAll(async () => {
  host = await startTestHost({ dirs: ['fixtures/hostile/global-rebinding'], autoInstall: false });
});
afterAll(() => host?.close());

let sequence = 0;
async function installationSeen(
  environment: Record<string, unknown>,
  installationId = 'inst_environment_cache',
): Promise<string> {
  const eventId = `evt_environment_cache_${sequence++}`;
  const url = 'http://127.0.0.1/environment-cache';
  const outcome = await host.supervisor.dispatch('global-rebinding', {
    event: { eventId, type: 'fetch', installationId, request: { method: 'POST', url, headers: [] } },
    environment,
    fetchBody: new TextEncoder().encode('body'),
  });
  expect(outcome.response.status).toBe(200);
  return (JSON.parse(new TextDecoder().decode(outcome.response.body)) as { installation: string }).installation;
}

describe('environments cached in a worker', () => {
  it(
    'give every dispatch the environment it was given, also ' + 'when an older one is dispatched after a newer one',
    async () => {
      const older = { installation: { id: 'inst_older_version' }, secrets: {} };
      const newer = { installation: { id: 'inst_newer_version' }, secrets: {} };
      expect(await installationSeen(newer)).toBe('inst_newer_version');
      expect(await installationSeen(newer)).toBe('inst_newer_version');
      expect(await installationSeen(older)).toBe('inst_older_version');
      expect(await installationSeen(newer)).toBe('inst_newer_version');
    },
  );

  it('past the bound, the worker drops every text and each is sent again: no dispatch runs without its own ' +
    'environment', async () => {
    const environments = Array.from({ length: MAX_HELD_ENVIRONMENTS + 1 }, (_, index) => ({
      installation: { id: `inst_bound_${index}` },
      secrets: {},
    }));
    // The first MAX_HELD_ENVIRONMENTS fill the store; the last one empties it on both sides.
    for (let start = 0; start < environments.length; start += 32) {
      const batch = environments
        .slice(start, start + 32)
        .map((environment) => installationSeen(environment, environment.installation.id));
      expect(await Promise.all(batch)).toEqual(
        environments.slice(start, start + 32).map((environment) => environment.installation.id),
      );
    }
    // Held before the bound, dropped since: had the supervisor kept believing the worker holds it,
    // this dispatch would travel without its text and fail.
    expect(await installationSeen(environments[0], 'inst_bound_0')).toBe('inst_bound_0');
    expect(await installationSeen(environments[MAX_HELD_ENVIRONMENTS], `inst_bound_${MAX_HELD_ENVIRONMENTS}`)).toBe(
      `inst_bound_${MAX_HELD_ENVIRONMENTS}`,
    );
  }, 120_000);
});

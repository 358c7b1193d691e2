// A guest using GitBook's API client from its isolate to take over what is not its own: another
// integration's installation (under that integration's name and its own), another organization's
// installation of itself, another integration's tokens, lists and task queue, and the admin's space
// selection. Every attempt is 404 (400 for the selection), and nothing of the victims changed.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestHost, endpointOf, installationOf, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';
import { install } from '../helpers/platform-api.ts';

let host: TestHost;
let report: Record<string, number>;
let foreign: string;

beforeAll(async () => {
  host = await startTestHost({ dirs: ['fixtures/integrations', 'fixtures/hostile'] });
  foreign = (await install(host, 'installation-takeover', { organization: 'globex', target: 'organization' })).id;
  const params = new URLSearchParams({ victim: installationOf(host, 'hello'), victimIntegration: 'hello', foreign });
  const response = await fetch(`${endpointOf(host, 'installation-takeover')}?${params}`);
  expect(response.status).toBe(200);
  report = await response.json();
});
afterAll(() => host?.close());

describe("installation takeover through GitBook's API", () => {
  it.each([
    'victimByItsName',
    'victimByOwnName',
    'victimWithInstallationToken',
    'foreignTree',
    'victimToken',
    'victimList',
    'victimSpaces',
    'victimTask',
  ])('is refused with 404: %s', (attempt) => {
    expect(report[attempt]).toBe(404);
  });

  it('cannot widen its own space selection (the admin chose it)', () => {
    expect(report.widenSelection).toBe(400);
  });

  it('changed nothing of the victims', async () => {
    expect((await host.stores.installations.getInstallation(installationOf(host, 'hello')))?.configuration).toEqual({});
    expect((await host.stores.installations.getInstallation(foreign))?.configuration).toEqual({});
    expect(
      (await host.stores.installations.getInstallation(installationOf(host, 'installation-takeover')))?.spaceSelection,
    ).toBe('all');
    const tasks = await host.admin('/v1/integrations/hello/tasks');
    expect((await tasks.json()).items).toEqual([]);
  });

  it('leaves the host and its neighbour answering', async () => {
    await expectHostHealthy(host);
  });
});

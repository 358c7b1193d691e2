// The runtime keeps the environment it was last sent parsed inside the isolate, and the worker
// sends the text again only when it changed; every dispatch gets its own copy. A guest that
// rewrites, re-prototypes, freezes and keeps references to what it was handed must find none of it
// in a later dispatch, whether the same installation's (no text sent) or another installation's
// of the same integration (text sent, then held again).
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestHost, endpointOf, installationOf, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';
import { install } from '../helpers/lifecycle.ts';

let host: TestHost;
let spaceEndpoint: string;
let spaceInstallation: string;

interface Report {
  text: string;
  installation: string | null;
  reused: number;
  plainPrototypes: boolean;
  frozen: number;
}

async function report(url: string): Promise<Report> {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  return (await response.json()) as Report;
}

beforeAll(async () => {
  host = await startTestHost({ dirs: ['fixtures/integrations', 'test/fixtures/environment-tampering'] });
  const created = await install(host, 'environment-tampering', {
    organization: 'acme',
    target: 'space',
    space: 'space_acme_docs',
  });
  expect(created.status).toBe(201);
  spaceInstallation = created.json.id;
  spaceEndpoint = created.json.urls.publicEndpoint;
});
afterAll(() => host?.close());

describe('environment tampering', () => {
  it('gives each dispatch of one installation the environment as built, untouched by the last dispatch', async () => {
    const first = await report(endpointOf(host, 'environment-tampering'));
    expect(first.installation).toBe(installationOf(host, 'environment-tampering'));
    expect(first.text).toContain('"apiTokens"');
    expect(first.text).not.toContain('by-the-guest');
    expect(first.text).not.toContain('ByTheGuest');
    for (let i = 0; i < 3; i++) {
      const next = await report(endpointOf(host, 'environment-tampering'));
      expect(next).toEqual({ ...first, reused: 0, plainPrototypes: true, frozen: 0 });
    }
  });

  it('gives installations of one integration, dispatched in turn, each its own untouched environment', async () => {
    const organization = await report(endpointOf(host, 'environment-tampering'));
    const space = await report(spaceEndpoint);
    expect(space.installation).toBe(installationOf(host, 'environment-tampering'));
    expect(space.text).toContain(spaceInstallation);
    expect(space.text).not.toBe(organization.text);
    for (let i = 0; i < 3; i++) {
      expect(await report(spaceEndpoint)).toEqual({ ...space, reused: 0, plainPrototypes: true, frozen: 0 });
      expect(await report(endpointOf(host, 'environment-tampering'))).toEqual({
        ...organization,
        reused: 0,
        plainPrototypes: true,
        frozen: 0,
      });
      expect(await report(spaceEndpoint)).toEqual(space);
    }
  });

  it('leaves the host and its neighbour answering', async () => {
    await expectHostHealthy(host);
  });
});

// A guest calling the platform API as someone else: forged tokens (random, truncated, one
// character flipped, another auth scheme, none), a stolen token of another integration's
// installation and the token of an uninstalled installation are all 401 ERR_UNAUTHORIZED; its own
// token works. The token of another installation of the same integration works too, by design:
// the integration received it in that installation's own envelope.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestHost, endpointOf, installationOf, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';
import { install, installationToken } from '../helpers/platform-api.ts';

let host: TestHost;
let report: Record<string, string>;

beforeAll(async () => {
  host = await startTestHost({ dirs: ['fixtures/integrations', 'fixtures/hostile'] });
  const sibling = await install(host, 'api-token-forgery', {
    organization: 'acme',
    target: 'space',
    space: 'space_acme_docs',
  });
  const doomed = await install(host, 'api-token-forgery', {
    organization: 'acme',
    target: 'space',
    space: 'space_acme_internal',
  });
  const revoked = await installationToken(host, doomed.id);
  expect((await host.admin(`/v1/installations/${doomed.id}`, { method: 'DELETE' })).status).toBeLessThan(300);
  const params = new URLSearchParams({
    stolen: await installationToken(host, installationOf(host, 'hello')),
    revoked,
    sibling: await installationToken(host, sibling.id),
  });
  // In the body: a host token in the URL would be refused before the integration runs.
  const response = await fetch(endpointOf(host, 'api-token-forgery'), { method: 'POST', body: params });
  expect(response.status).toBe(200);
  report = await response.json();
});
afterAll(() => host?.close());

describe('API token forgery', () => {
  it('works with its own token (control)', () => {
    expect(report.own).toBe('200');
  });

  it.each(['none', 'empty', 'random', 'truncated', 'flipped', 'otherScheme', 'stolen', 'revoked'])(
    'is refused with a %s token: 401 ERR_UNAUTHORIZED',
    (kind) => {
      expect(report[kind]).toBe('401 ERR_UNAUTHORIZED');
    },
  );

  it('accepts the token of another installation of the same integration, which it was given', () => {
    expect(report.sibling).toBe('200');
  });

  it('leaves the host and its neighbour answering', async () => {
    await expectHostHealthy(host);
  });
});

import { describe, it, expect } from 'vitest';
import { loadPlatformData, parsePlatformData, findOrganization } from '../../../host/platform-data/data.ts';

describe('loadPlatformData', () => {
  it('loads the fixture with at least two organizations, spaces and sites', () => {
    const data = loadPlatformData('fixtures/platform.yaml');
    expect(data.organizations.length).toBeGreaterThanOrEqual(2);
    expect(data.spaces.length).toBeGreaterThanOrEqual(2);
    expect(data.sites.length).toBeGreaterThanOrEqual(2);
    expect(findOrganization(data, 'acme')?.id).toBe('acme');
  });

  it('names a missing file', () => {
    expect(() => loadPlatformData('fixtures/nope.yaml')).toThrow(/cannot read platform data file fixtures\/nope\.yaml/);
  });

  it('reports each schema problem with its pointer', () => {
    expect(() => parsePlatformData('organizations: [{ id: acme }]\nspaces: []\nsites: []\n', 'p.yaml')).toThrow(
      /p\.yaml: invalid platform data:[\s\S]*\/organizations\/0: must have required property 'subdomain'/,
    );
  });

  it('rejects references to unknown organizations and spaces', () => {
    const text = `organizations: [{ id: a, subdomain: a, title: A }]
spaces: [{ id: s, organization: zzz, title: S }]
sites: [{ id: t, organization: a, title: T, spaces: [nope] }]
`;
    expect(() => parsePlatformData(text, 'p.yaml')).toThrow(
      /\/spaces\/0\/organization: unknown organization "zzz"[\s\S]*\/sites\/0\/spaces\/0: unknown space "nope"/,
    );
  });

  it('reports YAML syntax errors', () => {
    expect(() => parsePlatformData('organizations: [', 'p.yaml')).toThrow(/^p\.yaml: /);
  });
});

describe('site analytics and documents in the platform data', () => {
  it('loads views, feedback, the OpenAPI spec and adaptive claims of each site', () => {
    const site = loadPlatformData('fixtures/platform.yaml').sites.find((entry) => entry.id === 'site_acme');
    expect(site?.views.length).toBeGreaterThan(0);
    expect(site?.feedback.length).toBeGreaterThan(0);
    expect(site?.openapi).toMatchObject({ openapi: '3.1.0' });
    expect(site?.adaptive).toEqual({ plan: 'enterprise', region: 'eu' });
  });

  it('rejects a view or feedback of an unknown space', () => {
    const text = `organizations: [{ id: a, subdomain: a, title: A }]
spaces: [{ id: s, organization: a, title: S }]
sites: [{ id: t, organization: a, title: T, views: [{ id: v, spaceId: nope, url: u, visitorId: x, viewedAt: d }] }]
`;
    expect(() => parsePlatformData(text, 'p.yaml')).toThrow(/\/sites\/0\/views\/0\/spaceId: unknown space "nope"/);
  });
});

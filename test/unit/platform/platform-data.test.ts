import { describe, it, expect } from 'vitest';
import { loadPlatformData, parsePlatformData, findOrganization } from '../../../host/platform/platform-data.ts';

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
    expect(() => parsePlatformData('organizations: [{ id: acme }]\nspaces: []\nsites: []\n', 'p.yaml')).toThrow(/p\.yaml: invalid platform data:[\s\S]*\/organizations\/0: must have required property 'subdomain'/);
  });

  it('rejects references to unknown organizations and spaces', () => {
    const text = `organizations: [{ id: a, subdomain: a, title: A }]
spaces: [{ id: s, organization: zzz, title: S }]
sites: [{ id: t, organization: a, title: T, spaces: [nope] }]
`;
    expect(() => parsePlatformData(text, 'p.yaml')).toThrow(/\/spaces\/0\/organization: unknown organization "zzz"[\s\S]*\/sites\/0\/spaces\/0: unknown space "nope"/);
  });

  it('reports YAML syntax errors', () => {
    expect(() => parsePlatformData('organizations: [', 'p.yaml')).toThrow(/^p\.yaml: /);
  });
});

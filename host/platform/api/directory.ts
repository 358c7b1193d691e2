// A ResourceDirectory over the platform seed data, for authorization and event routing until
// (and unless) a store-backed directory replaces it. Pure lookups; never writes.

import type { PlatformData } from '../platform-data.ts';
import type { ResourceDirectory } from './types.ts';

export function directoryFromPlatformData(data: PlatformData): ResourceDirectory {
  const spaces = new Map(data.spaces.map((space) => [space.id, space.organization]));
  const sites = new Map(data.sites.map((site) => [site.id, { organization: site.organization, spaces: site.spaces }]));
  return {
    spaceOrganization: (id) => spaces.get(id),
    siteInfo: (id) => sites.get(id),
  };
}

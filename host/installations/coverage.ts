// Which spaces and sites an installation covers: its own space or site, or for an organization
// installation the spaces of its space_selection and the sites showing them. The one rule both
// platform-API authorization and event routing use. Pure over a directory of the platform's resources.

import type { ResourceDirectory } from '../platform-data/records.ts';
import type { Installation } from './model.ts';

function selectedSpaces(installation: Installation): 'all' | Set<string> {
  const selection = installation.spaceSelection ?? 'all';
  return selection === 'all' ? 'all' : new Set(selection);
}

/** Whether the installation covers a space: its own space, or (organization) a selected space of its organization. */
export function coversSpace(installation: Installation, directory: ResourceDirectory, spaceId: string): boolean {
  const organization = directory.spaceOrganization(spaceId);
  if (organization === undefined) return false;
  if (installation.target === 'space') return installation.space === spaceId;
  if (installation.target === 'site') return false;
  if (organization !== installation.organization) return false;
  const selection = selectedSpaces(installation);
  return selection === 'all' || selection.has(spaceId);
}

/** Whether the installation covers a site: its own site, or (organization) a site showing a selected space. */
export function coversSite(installation: Installation, directory: ResourceDirectory, siteId: string): boolean {
  const site = directory.siteInfo(siteId);
  if (site === undefined) return false;
  if (installation.target === 'site') return installation.site === siteId;
  if (installation.target === 'space') return false;
  if (site.organization !== installation.organization) return false;
  const selection = selectedSpaces(installation);
  return selection === 'all' || site.spaces.some((space) => selection.has(space));
}

/** Whether an installation covers the space or site an event names (siteId first). */
export function installationCovers(
  directory: ResourceDirectory,
  installation: Installation,
  event: { spaceId?: unknown; siteId?: unknown },
): boolean {
  if (typeof event.siteId === 'string') return coversSite(installation, directory, event.siteId);
  if (typeof event.spaceId === 'string') return coversSpace(installation, directory, event.spaceId);
  return false;
}

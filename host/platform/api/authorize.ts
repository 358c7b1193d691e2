// The one authorization decision of the platform API, used by the HTTP path and the bridge
// alike: (a) the manifest grants the scope, (b) the resource lies inside the installation.
// Pure; throws HostError. A foreign resource is 404 so its existence is never revealed.

import { HostError } from '../../errors.ts';
import type { Scope } from '../../manifest/types.ts';
import type { Installation } from '../../services.ts';
import type { ApiCaller, ResourceDirectory, ResourceRef } from './types.ts';

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

export function authorize(caller: ApiCaller, scope: Scope | null, resource: ResourceRef, directory: ResourceDirectory): void {
  if (scope !== null && !(caller.integration.manifest?.scopes ?? []).includes(scope)) {
    throw new HostError('ERR_SCOPE_DENIED', `integration "${caller.integration.name}" does not have the scope "${scope}"`);
  }
  if (resource.kind === 'space' && !coversSpace(caller.installation, directory, resource.id)) {
    throw new HostError('ERR_NOT_FOUND', `space "${resource.id}" not found`);
  }
  if (resource.kind === 'site' && !coversSite(caller.installation, directory, resource.id)) {
    throw new HostError('ERR_NOT_FOUND', `site "${resource.id}" not found`);
  }
}

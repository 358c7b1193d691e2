// The one authorization decision of the platform API, used by the HTTP path and the bridge
// alike: (a) the manifest grants the scope, (b) the resource lies inside the caller's reach.
// Throws HostError; never writes. A foreign resource is 404 so its existence is never revealed.
//
// What a token reaches (docs/platform-api.md#tokens):
// - an installation token: the spaces and sites its installation covers; the installation itself;
//   for an organization installation also the space and site installations under it; for a space
//   or site installation also the organization installation it belongs to (never a sibling);
// - the integration token: every installation of its own integration, and no space or site.

import { HostError } from '../common/errors.ts';
import type { Scope } from '../manifest/types.ts';
import type { Installation } from '../installations/model.ts';
import { coversSite, coversSpace } from '../installations/coverage.ts';
import { type ResourceDirectory } from '../platform-data/records.ts';
import type { ApiCaller, ResourceRef } from './types.ts';

/** What authorization may look up about installations (cached store reads). */
export interface InstallationLookup {
  get(id: string): Promise<Installation | undefined>;
  /** The space and site installations under an organization installation. */
  children(parentId: string): Promise<Installation[]>;
}

export interface AuthorizeDeps {
  directory: ResourceDirectory;
  installations: InstallationLookup;
}

const notFound = (what: string): HostError => new HostError('ERR_NOT_FOUND', `${what} not found`);

/** Whether the caller may read and change `target` (an installation of its integration). */
export function reaches(caller: ApiCaller, target: Installation): boolean {
  if (target.integration !== caller.integration.name) return false;
  const own = caller.installation;
  if (own === undefined) return true;
  return (
    target.id === own.id ||
    (own.parent !== undefined && target.id === own.parent) ||
    (target.parent !== undefined && target.parent === own.id)
  );
}

function requireOwnInstallation(caller: ApiCaller): Installation {
  if (caller.installation === undefined)
    throw new HostError(
      'ERR_FORBIDDEN',
      'this route acts for an installation: call it with an installation token (apiTokens.installation)',
    );
  return caller.installation;
}

function checkIntegrationName(caller: ApiCaller, name: string): void {
  if (name !== caller.integration.name) throw notFound(`integration "${name}"`);
}

/**
 * Checks scope then resource; resolves and returns the installation an `installation` or
 * `content-installation` resource names (undefined for other resources).
 */
export async function authorize(
  caller: ApiCaller,
  scope: Scope | null,
  resource: ResourceRef,
  deps: AuthorizeDeps,
): Promise<Installation | undefined> {
  if (scope !== null && !(caller.integration.manifest?.scopes ?? []).includes(scope)) {
    throw new HostError(
      'ERR_SCOPE_DENIED',
      `integration "${caller.integration.name}" does not have the scope "${scope}"`,
    );
  }
  switch (resource.kind) {
    case 'space':
      // The integration token covers no content: only an installation does.
      if (caller.installation === undefined || !coversSpace(caller.installation, deps.directory, resource.id))
        throw notFound(`space "${resource.id}"`);
      return undefined;
    case 'site':
      if (caller.installation === undefined || !coversSite(caller.installation, deps.directory, resource.id))
        throw notFound(`site "${resource.id}"`);
      return undefined;
    case 'organization-site': {
      const site = deps.directory.siteInfo(resource.site);
      if (
        caller.installation === undefined ||
        site?.organization !== resource.organization ||
        !coversSite(caller.installation, deps.directory, resource.site)
      ) {
        throw notFound(`site "${resource.site}" in organization "${resource.organization}"`);
      }
      return undefined;
    }
    case 'organization-id':
      if (requireOwnInstallation(caller).organization !== resource.id) throw notFound(`organization "${resource.id}"`);
      return undefined;
    case 'own-installation':
    case 'organization':
      requireOwnInstallation(caller);
      return undefined;
    case 'integration':
      checkIntegrationName(caller, resource.name);
      return undefined;
    case 'installation': {
      checkIntegrationName(caller, resource.name);
      const target = await deps.installations.get(resource.id);
      if (target === undefined || target.target !== 'organization' || !reaches(caller, target))
        throw notFound(`installation "${resource.id}"`);
      return target;
    }
    case 'content-installation': {
      checkIntegrationName(caller, resource.name);
      const what = `${resource.content} installation "${resource.contentId}" of installation "${resource.id}"`;
      const parent = await deps.installations.get(resource.id);
      if (parent === undefined || parent.integration !== caller.integration.name || parent.target !== 'organization')
        throw notFound(what);
      const target = (await deps.installations.children(parent.id)).find(
        (child) =>
          child.target === resource.content &&
          (resource.content === 'space' ? child.space : child.site) === resource.contentId,
      );
      if (target === undefined || !reaches(caller, target)) throw notFound(what);
      return target;
    }
  }
}

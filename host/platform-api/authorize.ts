// The one authorization decision of the platform API, used by the HTTP path and the bridge
// alike: (a) the manifest grants the scope, (b) the resource lies inside the installation.
// Pure; throws HostError. A foreign resource is 404 so its existence is never revealed.

import { HostError } from '../common/errors.ts';
import type { Scope } from '../manifest/types.ts';
import type { Installation } from '../installations/model.ts';
import { coversSite, coversSpace } from '../installations/coverage.ts';
import { type ResourceDirectory } from '../platform/records.ts';
import type { ApiCaller, ResourceRef } from './types.ts';

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

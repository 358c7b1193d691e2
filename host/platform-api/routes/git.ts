// Git Sync route (docs/platform-api.md): `POST /v1/spaces/:space/git/sync` (`space:git:sync`) records a
// sync request and answers 202 with its id. It never runs Git: there is no repository here.

import { installationOf, type ApiRoute } from '../types.ts';
import type { PlatformApiDeps } from '../deps.ts';
import { compileBodyValidator } from '../../common/validate-body.ts';

// No options yet; an empty object (or no body) is accepted so clients can send `{}`.
const validateSyncBody = compileBodyValidator<Record<string, never>>({ type: 'object', additionalProperties: false, properties: {} });

export const gitRoutes: ApiRoute<PlatformApiDeps>[] = [
  {
    method: 'POST',
    pattern: '/v1/spaces/:space/git/sync',
    scope: 'space:git:sync',
    resource: (params) => ({ kind: 'space', id: params.space }),
    async handle({ params, body, caller, deps }) {
      if (body !== undefined) validateSyncBody(body);
      return { status: 202, body: await deps.platform.recordGitSync(params.space, installationOf(caller).id) };
    },
  },
];

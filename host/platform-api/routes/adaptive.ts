// Adaptive content claims of a site (docs/platform-api.md): read (`site:adaptive:read`) and replace
// (`site:adaptive:write`, body `{ claims: { … } }`). The claims are opaque JSON to the host.

import type { ApiRoute } from '../types.ts';
import type { PlatformApiDeps } from '../deps.ts';
import { compileBodyValidator } from '../../common/validate-body.ts';

const site = (params: Record<string, string>) => ({ kind: 'site', id: params.site }) as const;

const validateClaimsBody = compileBodyValidator<{ claims: Record<string, unknown> }>({
  type: 'object',
  additionalProperties: false,
  required: ['claims'],
  properties: { claims: { type: 'object' } },
});

export const adaptiveRoutes: ApiRoute<PlatformApiDeps>[] = [
  {
    method: 'GET',
    pattern: '/v1/sites/:site/adaptive',
    scope: 'site:adaptive:read',
    resource: site,
    handle: async ({ params, deps }) => ({ status: 200, body: await deps.platform.getAdaptive(params.site) }),
  },
  {
    method: 'PUT',
    pattern: '/v1/sites/:site/adaptive',
    scope: 'site:adaptive:write',
    resource: site,
    handle: async ({ params, body, deps }) => ({
      status: 200,
      body: await deps.platform.putAdaptive(params.site, validateClaimsBody(body).claims),
    }),
  },
];

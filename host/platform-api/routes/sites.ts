// Site routes (docs/platform-api.md): site metadata (`site:metadata:read`) and its views
// (`site:views:read`, newest first, `?limit=` and `?cursor=` pagination). Read-only.

import type { ApiRoute } from '../types.ts';
import type { PlatformApiDeps } from '../deps.ts';
import { found, readCursor, readLimit } from './params.ts';

const DEFAULT_VIEWS_PAGE = 50;
const MAX_VIEWS_PAGE = 200;

const site = (params: Record<string, string>) => ({ kind: 'site', id: params.site }) as const;

export const siteRoutes: ApiRoute<PlatformApiDeps>[] = [
  {
    method: 'GET',
    pattern: '/v1/sites/:site',
    scope: 'site:metadata:read',
    resource: site,
    handle: async ({ params, deps }) => ({
      status: 200,
      body: found(await deps.platform.getSite(params.site), `site "${params.site}"`),
    }),
  },
  {
    method: 'GET',
    pattern: '/v1/sites/:site/views',
    scope: 'site:views:read',
    resource: site,
    async handle({ params, query, deps }) {
      const limit = readLimit(query, DEFAULT_VIEWS_PAGE, MAX_VIEWS_PAGE);
      const cursor = readCursor(query);
      return {
        status: 200,
        body: {
          siteId: params.site,
          ...(await deps.platform.listSiteViews(params.site, { limit, ...(cursor ? { cursor } : {}) })),
        },
      };
    },
  },
];

// The platform API route table (docs/platform-api.md): every operation with the scope it needs and the
// resource it touches. Route modules are listed here; nothing else registers routes.

import type { ApiRoute } from '../types.ts';
import type { PlatformApiDeps } from '../deps.ts';
import { contentRoutes } from './content.ts';
import { spaceRoutes } from './spaces.ts';
import { gitRoutes } from './git.ts';
import { revisionRoutes } from './revisions.ts';
import { siteRoutes } from './sites.ts';
import { adaptiveRoutes } from './adaptive.ts';
import { openApiRoutes } from './openapi.ts';
import { conversationRoutes } from './conversations.ts';
import { installationSelfRoutes } from './installation-self.ts';
import { gitbookInstallationRoutes } from './gitbook-installations.ts';
import { gitbookOrgRoutes } from './gitbook-orgs.ts';
import { gitbookTaskRoutes } from './gitbook-tasks.ts';
import { gitbookUrlRoutes } from './gitbook-urls.ts';

export const platformRoutes: ApiRoute<PlatformApiDeps>[] = [
  ...contentRoutes,
  ...spaceRoutes,
  ...gitRoutes,
  ...revisionRoutes,
  ...siteRoutes,
  ...adaptiveRoutes,
  ...openApiRoutes,
  ...conversationRoutes,
  ...installationSelfRoutes,
  ...gitbookInstallationRoutes,
  ...gitbookOrgRoutes,
  ...gitbookTaskRoutes,
  ...gitbookUrlRoutes,
];

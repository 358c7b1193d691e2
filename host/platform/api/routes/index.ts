// The platform API route table (DESIGN §4.7): every operation with the scope it needs and the
// resource it touches. Route modules are listed here; nothing else registers routes.

import type { ApiRoute } from '../types.ts';
import type { PlatformApiDeps } from '../deps.ts';

export const platformRoutes: ApiRoute<PlatformApiDeps>[] = [];

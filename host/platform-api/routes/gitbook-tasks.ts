// GitBook's task queue (docs/platform-api.md#tasks): `POST /v1/integrations/:name/tasks` with
// `{ task, schedule? }` queues a task of the caller's own integration, run later as a `task` event;
// 204. Only the integration token (apiTokens.integration) may queue, as on GitBook.

import type { ApiRoute } from '../types.ts';
import type { PlatformApiDeps } from '../deps.ts';

export const gitbookTaskRoutes: ApiRoute<PlatformApiDeps>[] = [
  {
    method: 'POST',
    pattern: '/v1/integrations/:name/tasks',
    scope: null,
    caller: 'integration',
    resource: (params) => ({ kind: 'integration', name: params.name }),
    async handle({ caller, body, deps }) {
      await deps.gitbook.queueTask(caller.integration.name, undefined, body);
      return { status: 204 };
    },
  },
];

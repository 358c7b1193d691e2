// GitBook's `getContentByUrl` (docs/platform-api.md#gitbooks-api): `GET /v1/urls/content?url=`
// resolves one of this host's own content URLs (a space's, a revision's or a page's `urls.app`) to
// the space (`space:metadata:read`) and the page (`space:content:read` too). The space goes through
// authorize() like a path's, so a foreign one is the same 404 as a URL naming nothing.

import type { ApiRoute } from '../types.ts';
import type { PlatformApiDeps } from '../deps.ts';
import { authorize } from '../authorize.ts';
import { HostError } from '../../common/errors.ts';
import { contentLocationOf } from '../../gitbook/revision.ts';
import { found } from './params.ts';
import { spaceAnswer } from './spaces.ts';
import { currentOf, pageAnswer, revisionOf } from './revisions.ts';

export const gitbookUrlRoutes: ApiRoute<PlatformApiDeps>[] = [
  {
    method: 'GET',
    pattern: '/v1/urls/content',
    scope: 'space:metadata:read',
    resource: () => ({ kind: 'organization' }),
    async handle({ query, caller, deps }) {
      const url = query.get('url');
      if (url === null || url === '')
        throw new HostError('ERR_VALIDATION', 'url is required', [{ pointer: '/url', message: 'is required' }]);
      const nothing = new HostError('ERR_NOT_FOUND', `no content of this platform at ${url.slice(0, 200)}`);
      const location = contentLocationOf(deps.gitbook.baseUrl, url);
      if (location === undefined) throw nothing;
      const checks = { directory: deps.directory, installations: deps.installations };
      await authorize(caller, null, { kind: 'space', id: location.space }, checks).catch((error: unknown) => {
        throw error instanceof HostError && error.code === 'ERR_NOT_FOUND' ? nothing : error;
      });
      const space = await spaceAnswer(
        deps,
        found(await deps.platform.getSpace(location.space), `space "${location.space}"`),
      );
      if (location.page === undefined) {
        // A revision's URL names the space it belongs to, when it is one of the space's.
        if (location.revision !== undefined) await revisionOf(deps, location.space, location.revision);
        return { status: 200, body: { space } };
      }
      // A page is content: the caller needs the content scope for it too.
      await authorize(caller, 'space:content:read', { kind: 'space', id: location.space }, checks);
      const revision =
        location.revision === undefined
          ? await currentOf(deps, location.space)
          : await revisionOf(deps, location.space, location.revision);
      return { status: 200, body: { space, page: await pageAnswer(deps, revision, location.page, 'id') } };
    },
  },
];

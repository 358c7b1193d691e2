// Space content routes (docs/platform-api.md): list pages, read a page (`space:content:read`) and write a
// page (`space:content:write`). The list is also GitBook's getCurrentRevision (same path): it answers
// GitBook's Revision fields beside the platform's own. Authorization happened before a handler
// runs; handlers never check scopes or ownership themselves.

import type { ApiRoute } from '../types.ts';
import type { PlatformApiDeps } from '../deps.ts';
import { compileBodyValidator } from '../../common/validate-body.ts';
import { found, requireId } from './params.ts';
import { HostError } from '../../common/errors.ts';
import { currentRevisionAnswer } from './revisions.ts';

const space = (params: Record<string, string>) => ({ kind: 'space', id: params.space }) as const;

const validatePageBody = compileBodyValidator<{ title?: string; markdown: string }>({
  type: 'object',
  additionalProperties: false,
  required: ['markdown'],
  properties: {
    title: { type: 'string', minLength: 1, maxLength: 200 },
    markdown: { type: 'string', maxLength: 512 * 1024 },
  },
});

/**
 * A space holds at most `maxPagesPerSpace` pages and `maxSpaceContentBytes` characters of Markdown:
 * what integrations write through the API is bounded, however many requests they make. Checked
 * before the write (concurrent writes can pass it by at most their own size each).
 */
async function checkSpaceQuota(
  deps: PlatformApiDeps,
  spaceId: string,
  pageId: string,
  markdownChars: number,
): Promise<void> {
  const { maxPagesPerSpace, maxSpaceContentBytes } = deps.quotas;
  const [usage, existing] = await Promise.all([
    deps.platform.spaceContentUsage(spaceId),
    deps.platform.getPage(spaceId, pageId),
  ]);
  if (existing === undefined && usage.pages >= maxPagesPerSpace) {
    throw new HostError(
      'ERR_QUOTA_EXCEEDED',
      `space "${spaceId}" already holds ${maxPagesPerSpace} pages, the most it may`,
    );
  }
  const after = usage.markdownChars - (existing?.markdown.length ?? 0) + markdownChars;
  if (after > maxSpaceContentBytes) {
    throw new HostError(
      'ERR_QUOTA_EXCEEDED',
      `space "${spaceId}" would hold ${after} characters of Markdown, more than its ${maxSpaceContentBytes}`,
    );
  }
}

export const contentRoutes: ApiRoute<PlatformApiDeps>[] = [
  {
    method: 'GET',
    pattern: '/v1/spaces/:space/content',
    scope: 'space:content:read',
    resource: space,
    // The platform's `{ spaceId, items }` keep their meaning; GitBook's Revision fields sit beside them.
    handle: async ({ params, deps }) => ({
      status: 200,
      body: {
        ...(await currentRevisionAnswer(deps, params.space)),
        spaceId: params.space,
        items: await deps.platform.listPages(params.space),
      },
    }),
  },
  {
    method: 'GET',
    pattern: '/v1/spaces/:space/content/pages/:page',
    scope: 'space:content:read',
    resource: space,
    handle: async ({ params, deps }) => ({
      status: 200,
      body: found(await deps.platform.getPage(params.space, params.page), `page "${params.page}"`),
    }),
  },
  {
    method: 'PUT',
    pattern: '/v1/spaces/:space/content/pages/:page',
    scope: 'space:content:write',
    resource: space,
    async handle({ params, body, deps }) {
      const pageId = requireId('page', params.page);
      const input = validatePageBody(body);
      await checkSpaceQuota(deps, params.space, pageId, input.markdown.length);
      const { page, created } = await deps.platform.putPage(params.space, pageId, input);
      return { status: created ? 201 : 200, body: page };
    },
  },
];

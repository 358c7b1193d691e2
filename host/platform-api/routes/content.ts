// Space content routes (docs/platform-api.md): list pages, read a page (`space:content:read`) and write a
// page (`space:content:write`). Authorization happened before a handler runs; handlers never
// check scopes or ownership themselves.

import type { ApiRoute } from '../types.ts';
import type { PlatformApiDeps } from '../deps.ts';
import { compileBodyValidator } from '../../common/validate-body.ts';
import { found, requireId } from './params.ts';

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

export const contentRoutes: ApiRoute<PlatformApiDeps>[] = [
  {
    method: 'GET',
    pattern: '/v1/spaces/:space/content',
    scope: 'space:content:read',
    resource: space,
    handle: async ({ params, deps }) => ({ status: 200, body: { spaceId: params.space, items: await deps.platform.listPages(params.space) } }),
  },
  {
    method: 'GET',
    pattern: '/v1/spaces/:space/content/pages/:page',
    scope: 'space:content:read',
    resource: space,
    handle: async ({ params, deps }) => ({ status: 200, body: found(await deps.platform.getPage(params.space, params.page), `page "${params.page}"`) }),
  },
  {
    method: 'PUT',
    pattern: '/v1/spaces/:space/content/pages/:page',
    scope: 'space:content:write',
    resource: space,
    async handle({ params, body, deps }) {
      const pageId = requireId('page', params.page);
      const { page, created } = await deps.platform.putPage(params.space, pageId, validatePageBody(body));
      return { status: created ? 201 : 200, body: page };
    },
  },
];

// Space metadata routes (docs/platform-api.md): read (`space:metadata:read`) and update
// (`space:metadata:write`; only title, description and visibility). Never touches pages.

import type { ApiRoute } from '../types.ts';
import type { PlatformApiDeps } from '../deps.ts';
import type { SpacePatch } from '../../platform-data/records.ts';
import { compileBodyValidator } from '../../common/validate-body.ts';
import { found } from './params.ts';
import { gitbookSpaceFields } from '../../gitbook/content.ts';
import type { SpaceRecord } from '../../platform-data/records.ts';

const space = (params: Record<string, string>) => ({ kind: 'space', id: params.space }) as const;

const validateSpacePatch = compileBodyValidator<SpacePatch>({
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    title: { type: 'string', minLength: 1, maxLength: 200 },
    description: { type: 'string', maxLength: 10_000 },
    visibility: { type: 'string', enum: ['public', 'unlisted', 'private'] },
  },
});

/**
 * This platform's space record with GitBook's Space fields added (GitBook's client calls the same
 * path: `spaces.getSpaceById`); the platform's own fields keep their meaning.
 */
export async function spaceAnswer(deps: PlatformApiDeps, space: SpaceRecord): Promise<Record<string, unknown>> {
  return { ...gitbookSpaceFields(deps.gitbook.baseUrl, space, await deps.platform.listPages(space.id)), ...space };
}

export const spaceRoutes: ApiRoute<PlatformApiDeps>[] = [
  {
    method: 'GET',
    pattern: '/v1/spaces/:space',
    scope: 'space:metadata:read',
    resource: space,
    handle: async ({ params, deps }) => ({
      status: 200,
      body: await spaceAnswer(deps, found(await deps.platform.getSpace(params.space), `space "${params.space}"`)),
    }),
  },
  {
    method: 'PATCH',
    pattern: '/v1/spaces/:space',
    scope: 'space:metadata:write',
    resource: space,
    async handle({ params, body, deps }) {
      const patch = validateSpacePatch(body);
      return {
        status: 200,
        body: await spaceAnswer(
          deps,
          found(await deps.platform.updateSpace(params.space, patch), `space "${params.space}"`),
        ),
      };
    },
  },
];

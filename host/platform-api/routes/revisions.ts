// GitBook's space content routes (docs/platform-api.md#revisions), all `space:content:read` on the
// space: a revision, its pages, one page by id or path, what it changed, and the same for the
// current revision. Answers in GitBook's shapes (gitbook/revision.ts) from the platform's recorded
// revisions; authorization happened before a handler runs.

import type { ApiRoute } from '../types.ts';
import type { PlatformApiDeps } from '../deps.ts';
import type { SpaceRevision } from '../../platform-data/records.ts';
import { changesBetween } from '../../platform-data/revisions.ts';
import { gitbookRevision, gitbookRevisionPage, gitbookSemanticChanges } from '../../gitbook/revision.ts';
import { HostError } from '../../common/errors.ts';
import { found, readLimit } from './params.ts';

const space = (params: Record<string, string>) => ({ kind: 'space', id: params.space }) as const;
const notFound = (what: string): HostError => new HostError('ERR_NOT_FOUND', `${what} not found`);

/** GitBook's default number of changes, and the most one call answers. */
const CHANGES_DEFAULT = 10;
const CHANGES_MAX = 1_000;

export async function revisionOf(deps: PlatformApiDeps, spaceId: string, revisionId: string): Promise<SpaceRevision> {
  const revision = await deps.platform.getRevision(spaceId, revisionId);
  // A space keeps its newest revisions only (platform/revisions.ts): an older one is as unknown as a made-up id.
  if (revision === undefined)
    throw notFound(`revision "${revisionId}" of space "${spaceId}" (a space keeps its newest revisions)`);
  return revision;
}

export async function currentOf(deps: PlatformApiDeps, spaceId: string): Promise<SpaceRevision> {
  return found(await deps.platform.getCurrentRevision(spaceId), `current revision of space "${spaceId}"`);
}

/** GitBook's Revision for a recorded revision, with its page versions. */
export async function revisionAnswer(deps: PlatformApiDeps, revision: SpaceRevision): Promise<Record<string, unknown>> {
  return gitbookRevision(
    deps.gitbook.baseUrl,
    revision,
    await deps.platform.getPageVersions(revision.spaceId, revision.pages),
  );
}

/**
 * GitBook's Revision for the space's current revision (also answered, with the platform's own fields, by `GET
 * …/content`).
 */
export async function currentRevisionAnswer(deps: PlatformApiDeps, spaceId: string): Promise<Record<string, unknown>> {
  return revisionAnswer(deps, await currentOf(deps, spaceId));
}

async function pagesAnswer(
  deps: PlatformApiDeps,
  revision: SpaceRevision,
): Promise<{ pages: Record<string, unknown>[] }> {
  const pages = await deps.platform.getPageVersions(revision.spaceId, revision.pages);
  return { pages: pages.map((page) => gitbookRevisionPage(deps.gitbook.baseUrl, revision.id, page)) };
}

/** One page of a revision, by id (a page's path is its id here, so both lookups name it). */
export async function pageAnswer(
  deps: PlatformApiDeps,
  revision: SpaceRevision,
  pageId: string,
  by: 'id' | 'path',
): Promise<Record<string, unknown>> {
  const what = by === 'id' ? `page "${pageId}"` : `page at path "${pageId}"`;
  const ref = revision.pages.find((page) => page.id === pageId);
  if (ref === undefined) throw notFound(`${what} in revision "${revision.id}"`);
  const [page] = await deps.platform.getPageVersions(revision.spaceId, [ref]);
  return gitbookRevisionPage(deps.gitbook.baseUrl, revision.id, found(page, `${what} in revision "${revision.id}"`));
}

async function changesAnswer(
  deps: PlatformApiDeps,
  revision: SpaceRevision,
  limit: number,
): Promise<Record<string, unknown>> {
  let parent: SpaceRevision | undefined;
  if (revision.parent !== null) {
    parent = await deps.platform.getRevision(revision.spaceId, revision.parent);
    if (parent === undefined)
      throw notFound(
        `parent revision "${revision.parent}" of revision "${revision.id}" ` +
          `(a space keeps its newest revisions), so its changes are`,
      );
  }
  const versions = await deps.platform.getPageVersions(revision.spaceId, [...revision.pages, ...(parent?.pages ?? [])]);
  return gitbookSemanticChanges(changesBetween(revision, parent, versions), limit);
}

const read = (pattern: string, handle: ApiRoute<PlatformApiDeps>['handle']): ApiRoute<PlatformApiDeps> => ({
  method: 'GET',
  pattern,
  scope: 'space:content:read',
  resource: space,
  handle,
});

export const revisionRoutes: ApiRoute<PlatformApiDeps>[] = [
  // getRevisionById, listPagesInRevisionById, getPageInRevisionById, getPageInRevisionByPath,
  // getRevisionSemanticChanges
  read('/v1/spaces/:space/revisions/:revision', async ({ params, deps }) => ({
    status: 200,
    body: await revisionAnswer(deps, await revisionOf(deps, params.space, params.revision)),
  })),
  read('/v1/spaces/:space/revisions/:revision/pages', async ({ params, deps }) => ({
    status: 200,
    body: await pagesAnswer(deps, await revisionOf(deps, params.space, params.revision)),
  })),
  read('/v1/spaces/:space/revisions/:revision/page/:page', async ({ params, deps }) => ({
    status: 200,
    body: await pageAnswer(deps, await revisionOf(deps, params.space, params.revision), params.page, 'id'),
  })),
  read('/v1/spaces/:space/revisions/:revision/path/:path', async ({ params, deps }) => ({
    status: 200,
    body: await pageAnswer(deps, await revisionOf(deps, params.space, params.revision), params.path, 'path'),
  })),
  read('/v1/spaces/:space/revisions/:revision/changes', async ({ params, query, deps }) => {
    const limit = readLimit(query, CHANGES_DEFAULT, CHANGES_MAX);
    return {
      status: 200,
      body: await changesAnswer(deps, await revisionOf(deps, params.space, params.revision), limit),
    };
  }),
  // The current revision's: listPages, getPageById, getPageByPath (getCurrentRevision is
  // `GET …/content`, content.ts).
  read('/v1/spaces/:space/content/pages', async ({ params, deps }) => ({
    status: 200,
    body: await pagesAnswer(deps, await currentOf(deps, params.space)),
  })),
  read('/v1/spaces/:space/content/page/:page', async ({ params, deps }) => ({
    status: 200,
    body: await pageAnswer(deps, await currentOf(deps, params.space), params.page, 'id'),
  })),
  read('/v1/spaces/:space/content/path/:path', async ({ params, deps }) => ({
    status: 200,
    body: await pageAnswer(deps, await currentOf(deps, params.space), params.path, 'path'),
  })),
];

// GitBook's Revision, RevisionPage and RevisionSemanticChanges (spec schemas of those names) for the
// platform's space revisions and page versions, as its API answers them. Pure. This platform's
// pages are flat Markdown documents: each is a `document` page whose slug and path are its id,
// carrying its Markdown; revisions have no files, reusable contents, tags or Git commit.

import type { PageRecord, SpaceRevision } from '../platform-data/records.ts';
import type { PageChange } from '../platform-data/revisions.ts';

/** GitBook's page layout defaults: everything shown, default width, no cover. */
const LAYOUT = {
  width: 'default',
  cover: false,
  coverSize: 'hero',
  coverMask: 'none',
  title: true,
  description: true,
  tableOfContents: true,
  outline: true,
  pagination: true,
  metadata: true,
  tags: true,
  actions: true,
  anchors: true,
} as const;

const spacePath = (baseUrl: string, spaceId: string): string => `${baseUrl}/v1/spaces/${encodeURIComponent(spaceId)}`;

/** Where a revision is answered on this host (its `urls.app`). */
export function revisionUrl(baseUrl: string, spaceId: string, revisionId: string): string {
  return `${spacePath(baseUrl, spaceId)}/revisions/${encodeURIComponent(revisionId)}`;
}

/** A page's title as GitBook requires it (at least one character): its id when the data gave none. */
const titleOf = (page: PageRecord): string => (page.title === '' ? page.id : page.title);

/** GitBook's RevisionPageDocument for one page version of revision `revisionId`; its path is its id. */
export function gitbookRevisionPage(baseUrl: string, revisionId: string, page: PageRecord): Record<string, unknown> {
  return {
    id: page.id,
    title: titleOf(page),
    kind: 'sheet',
    type: 'document',
    slug: page.id,
    path: page.id,
    urls: { app: `${revisionUrl(baseUrl, page.spaceId, revisionId)}/page/${encodeURIComponent(page.id)}` },
    pages: [],
    layout: LAYOUT,
    tags: [],
    updatedAt: page.updatedAt,
    markdown: page.markdown,
  };
}

/** GitBook's Revision (type `edits`: every revision here is made by writing a page) with its pages. */
export function gitbookRevision(
  baseUrl: string,
  revision: SpaceRevision,
  pages: readonly PageRecord[],
): Record<string, unknown> {
  return {
    object: 'revision',
    id: revision.id,
    type: 'edits',
    parents: revision.parent === null ? [] : [revision.parent],
    pages: pages.map((page) => gitbookRevisionPage(baseUrl, revision.id, page)),
    files: [],
    reusableContents: [],
    tags: [],
    createdAt: revision.createdAt,
    urls: { app: revisionUrl(baseUrl, revision.spaceId, revision.id) },
  };
}

const changedPage = (page: PageRecord) => ({ id: page.id, type: 'document', title: titleOf(page), path: page.id });

/** A page version's name in a change's `document` attribute: `<page id>@<version>`. */
const versionName = (page: PageRecord): string => `${page.id}@${page.revision}`;

function gitbookChange(change: PageChange): Record<string, unknown> {
  if (change.type !== 'page_edited') return { type: change.type, page: changedPage(change.page) };
  const attributes: Record<string, { before: string; after: string }> = {
    document: { before: versionName(change.before), after: versionName(change.page) },
  };
  if (titleOf(change.before) !== titleOf(change.page))
    attributes.title = { before: titleOf(change.before), after: titleOf(change.page) };
  return { type: 'page_edited', page: changedPage(change.page), attributes };
}

/** GitBook's RevisionSemanticChanges: the first `limit` changes, and how many more there were. */
export function gitbookSemanticChanges(changes: readonly PageChange[], limit: number): Record<string, unknown> {
  const shown = changes.slice(0, limit).map(gitbookChange);
  return changes.length > limit ? { changes: shown, more: changes.length - limit } : { changes: shown };
}

/** What a content URL of this host names: a space, a revision of it, a page of the current content or of a revision. */
export interface ContentLocation {
  space: string;
  revision?: string;
  page?: string;
}

/**
 * The content one of this host's own URLs names (the `urls.app` of spaces, revisions and pages it
 * answers, and `…/content/page/:page`), or undefined for any other URL.
 */
export function contentLocationOf(baseUrl: string, url: string): ContentLocation | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  const base = new URL(baseUrl);
  const prefix = `${base.pathname.replace(/\/$/, '')}/v1/spaces/`;
  if (parsed.origin !== base.origin || !parsed.pathname.startsWith(prefix)) return undefined;
  let segments: string[];
  try {
    segments = parsed.pathname.slice(prefix.length).replace(/\/$/, '').split('/').map(decodeURIComponent);
  } catch {
    return undefined;
  }
  if (segments.some((segment) => segment === '')) return undefined;
  const [space, kind, a, b, c] = segments;
  if (segments.length === 1) return { space };
  if (kind === 'content' && a === 'page' && segments.length === 4) return { space, page: b };
  if (kind === 'revisions' && segments.length === 3) return { space, revision: a };
  if (kind === 'revisions' && b === 'page' && segments.length === 5) return { space, revision: a, page: c };
  return undefined;
}

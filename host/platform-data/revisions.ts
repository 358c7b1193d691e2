// Space revisions (docs/platform-api.md#revisions): a revision's id, derived from the versions of
// its pages, how many a space keeps, which superseded page versions pruning frees, and what
// changed between a revision and its parent. Pure; the stores do the reading and writing.

import { createHash } from 'node:crypto';
import type { PageRecord, RevisionPageRef, SpaceRevision } from './records.ts';

/**
 * Revisions a space keeps (its newest), with the page versions they hold: each page write records
 * one, so this bounds the superseded Markdown a space stores to this many page writes.
 */
export const MAX_REVISIONS_PER_SPACE = 100;

/**
 * A space revision's id: derived from its pages' ids and versions, so it names exactly one state of
 * the space's content. Page versions only ever grow, so an id is never reused for another state.
 */
export function revisionIdOf(pages: readonly RevisionPageRef[]): string {
  const sorted = [...pages]
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((page) => [page.id, page.revision]);
  // JSON, so no page id, whatever its characters, reads as another split of the same text.
  return `rev_${createHash('sha256').update(JSON.stringify(sorted)).digest('hex').slice(0, 20)}`;
}

/**
 * After the revisions `removed` are pruned and `oldestKept` is the oldest left, the superseded
 * versions no kept revision holds: for each page, versions below `revision` may go. Only pages whose
 * version differs between a removed revision and `oldestKept` are named (usually one per prune).
 */
export function versionsFreed(removed: readonly SpaceRevision[], oldestKept: SpaceRevision): RevisionPageRef[] {
  const kept = new Map(oldestKept.pages.map((page) => [page.id, page.revision]));
  const freed = new Map<string, number>();
  for (const revision of removed) {
    for (const page of revision.pages) {
      // A page the oldest kept revision no longer has: none of its older versions is held by anyone.
      const below = kept.get(page.id) ?? Number.MAX_SAFE_INTEGER;
      if (page.revision < below) freed.set(page.id, below);
    }
  }
  return [...freed].map(([id, revision]) => ({ id, revision }));
}

/** What changed for one page between a revision's parent and the revision. */
export type PageChange =
  | { type: 'page_created'; page: PageRecord }
  | { type: 'page_edited'; page: PageRecord; before: PageRecord }
  | { type: 'page_deleted'; page: PageRecord };

/**
 * The changes a revision made to its parent's pages: a page it holds that the parent did not is
 * created; a page it holds at another version is edited (a new version was written: its Markdown,
 * and its title when that differs); a page only the parent holds is deleted. With no parent (the
 * space's first recorded revision) every page is created. In the revision's page order, deleted
 * pages last. `versions` holds every page version of both revisions.
 */
export function changesBetween(
  revision: SpaceRevision,
  parent: SpaceRevision | undefined,
  versions: readonly PageRecord[],
): PageChange[] {
  const byVersion = new Map(versions.map((page) => [`${page.id}\n${page.revision}`, page]));
  const versionOf = (ref: RevisionPageRef): PageRecord | undefined => byVersion.get(`${ref.id}\n${ref.revision}`);
  const before = new Map((parent?.pages ?? []).map((ref) => [ref.id, ref]));
  const changes: PageChange[] = [];
  for (const ref of revision.pages) {
    const page = versionOf(ref);
    if (page === undefined) continue;
    const previous = before.get(ref.id);
    if (previous === undefined) changes.push({ type: 'page_created', page });
    else if (previous.revision !== ref.revision) {
      const old = versionOf(previous);
      if (old !== undefined) changes.push({ type: 'page_edited', page, before: old });
    }
  }
  const now = new Set(revision.pages.map((ref) => ref.id));
  for (const ref of parent?.pages ?? []) {
    const page = now.has(ref.id) ? undefined : versionOf(ref);
    if (page !== undefined) changes.push({ type: 'page_deleted', page });
  }
  return changes;
}

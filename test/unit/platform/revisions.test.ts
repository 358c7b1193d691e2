// The pure rules of space revisions: ids derived from page versions (order-free, never shared by two
// states), which superseded versions pruning frees, and what a revision changed from its parent.
import { describe, expect, it } from 'vitest';
import type { PageRecord, RevisionPageRef, SpaceRevision } from '../../../host/platform-data/records.ts';
import { changesBetween, revisionIdOf, versionsFreed } from '../../../host/platform-data/revisions.ts';

const revision = (id: string, parent: string | null, pages: [string, number][]): SpaceRevision => ({
  id,
  spaceId: 'space_1',
  parent,
  pages: pages.map(([page, version]) => ({ id: page, revision: version })),
  createdAt: '2026-11-29T00:00:00.000Z',
});
const version = (id: string, revision: number, title = id): PageRecord => ({
  id,
  spaceId: 'space_1',
  revision,
  title,
  markdown: `${id} v${revision}`,
  updatedAt: '2026-11-29T00:00:00.000Z',
});

describe('revisionIdOf', () => {
  it('names the set of page versions, whatever their order', () => {
    const pages: RevisionPageRef[] = [
      { id: 'a', revision: 1 },
      { id: 'b', revision: 2 },
    ];
    expect(revisionIdOf(pages)).toMatch(/^rev_[0-9a-f]{20}$/);
    expect(revisionIdOf([...pages].reverse())).toBe(revisionIdOf(pages));
    expect(
      revisionIdOf([
        { id: 'a', revision: 2 },
        { id: 'b', revision: 2 },
      ]),
    ).not.toBe(revisionIdOf(pages));
    // "a:1" + "b:2" must not read as another split of the same characters.
    expect(revisionIdOf([{ id: 'a:1\nb', revision: 2 }])).not.toBe(revisionIdOf(pages));
  });
});

describe('versionsFreed', () => {
  it('frees, per page, the versions below what the oldest kept revision holds', () => {
    const removed = [
      revision('r1', null, [
        ['a', 1],
        ['b', 1],
      ]),
      revision('r2', 'r1', [
        ['a', 2],
        ['b', 1],
      ]),
    ];
    const oldestKept = revision('r3', 'r2', [
      ['a', 2],
      ['b', 2],
    ]);
    expect(versionsFreed(removed, oldestKept)).toEqual([
      { id: 'a', revision: 2 },
      { id: 'b', revision: 2 },
    ]);
  });

  it('frees nothing for pages the oldest kept revision holds at the same version', () => {
    expect(
      versionsFreed(
        [
          revision('r1', null, [
            ['a', 1],
            ['b', 4],
          ]),
        ],
        revision('r2', 'r1', [
          ['a', 2],
          ['b', 4],
        ]),
      ),
    ).toEqual([{ id: 'a', revision: 2 }]);
  });

  it('frees every version of a page the oldest kept revision no longer has', () => {
    expect(versionsFreed([revision('r1', null, [['gone', 3]])], revision('r2', 'r1', []))).toEqual([
      { id: 'gone', revision: Number.MAX_SAFE_INTEGER },
    ]);
  });
});

describe('changesBetween', () => {
  const parent = revision('r1', null, [
    ['a', 1],
    ['b', 1],
    ['c', 1],
  ]);
  const child = revision('r2', 'r1', [
    ['a', 2],
    ['b', 1],
    ['d', 1],
  ]);
  const versions = [
    version('a', 1, 'Old title'),
    version('a', 2, 'New title'),
    version('b', 1),
    version('c', 1),
    version('d', 1),
  ];

  it("finds created, edited and deleted pages, in the revision's order, deleted last", () => {
    expect(
      changesBetween(child, parent, versions).map((change) => [change.type, change.page.id, change.page.revision]),
    ).toEqual([
      ['page_edited', 'a', 2],
      ['page_created', 'd', 1],
      ['page_deleted', 'c', 1],
    ]);
    const [edited] = changesBetween(child, parent, versions);
    expect(edited.type === 'page_edited' && edited.before.title).toBe('Old title');
  });

  it('counts every page of a first revision as created', () => {
    expect(changesBetween(parent, undefined, versions).map((change) => [change.type, change.page.id])).toEqual([
      ['page_created', 'a'],
      ['page_created', 'b'],
      ['page_created', 'c'],
    ]);
  });

  it('finds nothing between a revision and itself', () => {
    expect(changesBetween(child, child, versions)).toEqual([]);
  });
});

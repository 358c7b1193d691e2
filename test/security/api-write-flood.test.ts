// An integration writing as much as it can through the platform API: pages of 500 KB, large
// conversations, endless git syncs, one page rewritten without end. What it may store is bounded
// per space (pages and characters of Markdown, its newest 100 revisions) and per installation
// (conversations); past a bound the API answers 507 ERR_QUOTA_EXCEEDED. (Git requests keep only
// the newest 1,000 per space, and pruned revisions take the page versions only they held with
// them: test/unit/store.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointOf, startTestHost, type TestHost } from '../helpers/host.ts';
import { expectHostHealthy } from '../helpers/host-health.ts';
import { MAX_REVISIONS_PER_SPACE } from '../../host/platform-data/revisions.ts';

let host: TestHost;

beforeAll(async () => {
  // Small quotas keep the test quick; the defaults are 2,000 pages and 64 MiB per space, 64 MiB per installation.
  host = await startTestHost({
    dirs: ['fixtures/integrations', 'fixtures/hostile'],
    limits: {
      maxPagesPerSpace: 30,
      maxSpaceContentBytes: 4 * 1024 * 1024,
      maxConversationBytesPerInstallation: 2 * 1024 * 1024,
    },
  });
});
afterAll(() => host?.close());

const flood = async (query: string): Promise<{ statuses: number[]; lastError: string }> =>
  (await fetch(`${endpointOf(host, 'api-write-flood')}?${query}`)).json();

describe('writing without bound through the platform API', () => {
  it(
    "keeps only the space's newest revisions however often one page is rewritten (before the quotas fill the " +
      'space)',
    async () => {
      // A dispatch may make 50 calls: three of 40 rewrites (120 in all, more than the space keeps).
      for (let round = 0; round < 3; round++)
        expect(
          (await flood('what=rewrites&count=40&kb=64&prefix=churn')).statuses.every(
            (status) => status === 200 || status === 201,
          ),
        ).toBe(true);
      const { platform } = host.stores;
      let revision = await platform.getCurrentRevision('space_acme_docs');
      let held = 0;
      for (; revision !== undefined; held++)
        revision =
          revision.parent === null ? undefined : await platform.getRevision('space_acme_docs', revision.parent);
      expect(held).toBe(MAX_REVISIONS_PER_SPACE);
    },
  );

  it("stops pages at the space's character quota with 507", async () => {
    const { statuses, lastError } = await flood('what=pages&count=12&kb=500');
    // 4 MiB of Markdown holds eight pages of 500 KiB (the space's seeded pages take a little).
    expect(statuses.filter((status) => status === 201).length).toBeLessThanOrEqual(8);
    expect(statuses.at(-1)).toBe(507);
    expect(lastError).toBe('ERR_QUOTA_EXCEEDED');
    const usage = await host.stores.platform.spaceContentUsage('space_acme_docs');
    expect(usage.markdownChars).toBeLessThanOrEqual(4 * 1024 * 1024);
  });

  it("stops pages at the space's page quota with 507, while rewriting an existing page still works", async () => {
    const { statuses } = await flood('what=pages&count=40&kb=1&prefix=small');
    expect(statuses.at(-1)).toBe(507);
    expect((await host.stores.platform.spaceContentUsage('space_acme_docs')).pages).toBe(30);
    // Replacing a page adds no page.
    const again = await flood('what=pages&count=1&kb=1&prefix=small');
    expect(again.statuses).toEqual([200]);
  });

  it("stops conversations at the installation's quota with 507", async () => {
    const { statuses, lastError } = await flood('what=conversations&count=8&kb=400');
    expect(statuses.at(-1)).toBe(507);
    expect(lastError).toBe('ERR_QUOTA_EXCEEDED');
  });

  it('leaves the host and its neighbour answering', async () => {
    await expectHostHealthy(host);
  });
});

// The content-sync fixture through the real host: on space_content_updated it reads its space's
// pages through context.api and writes a summary page; its probe endpoint sees 404 for another
// organization's space and 403 for a metadata write it has no scope for.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestHost, endpointOf, installationOf, type TestHost } from '../helpers/host.ts';
import { callApi, installationToken } from '../helpers/platform-api.ts';

let host: TestHost;

beforeAll(async () => {
  host = await startTestHost();
});
afterAll(() => host?.close());

async function probe(op: string, space: string): Promise<{ status: number; code?: string }> {
  const response = await fetch(`${endpointOf(host, 'content-sync')}?op=${op}&space=${space}`);
  expect(response.status).toBe(200);
  return response.json();
}

describe('content-sync fixture', () => {
  it('writes a summary page of the updated space, readable afterwards through the API', async () => {
    const response = await host.admin('/v1/events', {
      method: 'POST',
      body: JSON.stringify({ type: 'space_content_updated', spaceId: 'space_acme_docs', revisionId: 'rev_7' }),
    });
    expect(response.status).toBe(202);
    const { dispatched } = await response.json();
    expect(dispatched).toContainEqual({
      installationId: installationOf(host, 'content-sync'),
      integration: 'content-sync',
      status: 200,
    });

    const token = await installationToken(host, installationOf(host, 'content-sync'));
    const page = await callApi(host, token, 'GET', '/v1/spaces/space_acme_docs/content/pages/sync-summary');
    expect(page.status).toBe(200);
    expect(page.body.title).toBe('Sync summary');
    expect(page.body.markdown).toContain('at revision rev_7');
    expect(page.body.markdown).toContain('- Introduction (`page_intro`');
    expect(page.body.markdown).toContain('- API reference (`page_api`');
    expect(page.body.markdown).not.toContain('sync-summary');
  });

  it("bumps the summary page's revision on the next update instead of duplicating it", async () => {
    await host.admin('/v1/events', {
      method: 'POST',
      body: JSON.stringify({ type: 'space_content_updated', spaceId: 'space_acme_docs', revisionId: 'rev_8' }),
    });
    const token = await installationToken(host, installationOf(host, 'content-sync'));
    const { body } = await callApi(host, token, 'GET', '/v1/spaces/space_acme_docs/content');
    const summaries = body.items.filter((item: { id: string }) => item.id === 'sync-summary');
    expect(summaries).toHaveLength(1);
    expect(summaries[0].revision).toBeGreaterThanOrEqual(2);
  });

  it("reads its own organization's space", async () => {
    expect(await probe('read', 'space_acme_docs')).toMatchObject({ status: 200 });
  });

  it("gets 404 for another organization's space", async () => {
    expect(await probe('read', 'space_globex_docs')).toMatchObject({ status: 404, code: 'ERR_NOT_FOUND' });
  });

  it('gets 403 for a metadata write it has no scope for', async () => {
    expect(await probe('write-metadata', 'space_acme_docs')).toMatchObject({ status: 403, code: 'ERR_SCOPE_DENIED' });
  });
});

// Platform data lives in the store: a page written through the API on a file store is still
// there after the host restarts on the same file, and the seed does not overwrite it.
import { describe, it, expect, afterAll } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestHost, installationOf, type TestHost } from '../helpers/host.ts';
import { callApi, installationToken } from '../helpers/platform-api.ts';

const dir = mkdtempSync(join(tmpdir(), 'platform-persistence-'));
const dataPath = join(dir, 'host.db');
let host: TestHost | undefined;

afterAll(async () => {
  await host?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('platform data across a restart', () => {
  it('keeps pages, metadata and claims written through the API, and the seed does not reset them', async () => {
    host = await startTestHost({ dataPath, dirs: ['test/fixtures'] });
    let token = await installationToken(host, installationOf(host, 'api-probe-all'));
    // page_intro is in the seed: an edit of it is what a reseed would clobber.
    expect(
      (
        await callApi(host, token, 'PUT', '/v1/spaces/space_acme_docs/content/pages/page_intro', {
          markdown: 'edited before restart',
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await callApi(host, token, 'PUT', '/v1/spaces/space_acme_docs/content/pages/page_added', {
          title: 'Added',
          markdown: 'new',
        })
      ).status,
    ).toBe(201);
    expect((await callApi(host, token, 'PATCH', '/v1/spaces/space_acme_docs', { title: 'Renamed docs' })).status).toBe(
      200,
    );
    expect(
      (await callApi(host, token, 'PUT', '/v1/sites/site_acme/adaptive', { claims: { plan: 'startup' } })).status,
    ).toBe(200);
    await host.close();
    host = undefined;

    host = await startTestHost({ dataPath, dirs: ['test/fixtures'] });
    token = await installationToken(host, installationOf(host, 'api-probe-all'));
    const intro = await callApi(host, token, 'GET', '/v1/spaces/space_acme_docs/content/pages/page_intro');
    expect(intro.body).toMatchObject({ markdown: 'edited before restart', revision: 2, title: 'Introduction' });
    expect(
      (await callApi(host, token, 'GET', '/v1/spaces/space_acme_docs/content/pages/page_added')).body,
    ).toMatchObject({ title: 'Added', markdown: 'new', revision: 1 });
    expect((await callApi(host, token, 'GET', '/v1/spaces/space_acme_docs')).body.title).toBe('Renamed docs');
    expect((await callApi(host, token, 'GET', '/v1/sites/site_acme/adaptive')).body.claims).toEqual({
      plan: 'startup',
    });
    // Seed rows nobody touched are still there.
    expect((await callApi(host, token, 'GET', '/v1/spaces/space_acme_docs/content/pages/page_api')).body.markdown).toBe(
      '## Endpoints',
    );
  });
});

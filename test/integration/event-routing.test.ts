// Platform events reach an installation only when it covers the event's space or site, by the same
// rule as the platform API: an organization installation covers just its space_selection.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestHost, type TestHost } from '../helpers/host.ts';

let host: TestHost;
let installationId = '';

beforeAll(async () => {
  host = await startTestHost({ autoInstall: false });
  const response = await host.admin('/v1/integrations/event-log/installations', {
    method: 'POST',
    body: JSON.stringify({ organization: 'acme', target: 'organization', space_selection: ['space_acme_docs'] }),
  });
  expect(response.status).toBe(201);
  installationId = (await response.json()).id;
});
afterAll(() => host?.close());

async function publish(spaceId: string): Promise<{ installationId: string }[]> {
  const response = await host.admin('/v1/events', {
    method: 'POST',
    body: JSON.stringify({ type: 'space_content_updated', spaceId, revisionId: 'r1' }),
  });
  expect(response.status).toBe(202);
  return (await response.json()).dispatched;
}

describe('event routing with space_selection', () => {
  it('dispatches events of a selected space', async () => {
    expect(await publish('space_acme_docs')).toContainEqual(expect.objectContaining({ installationId, status: 200 }));
  });

  it('does not dispatch events of an unselected space of the same organization', async () => {
    expect(await publish('space_acme_internal')).toEqual([]);
  });

  it('does not dispatch events of another organization', async () => {
    expect(await publish('space_globex_docs')).toEqual([]);
  });
});

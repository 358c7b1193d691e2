// Console lines land in the event log of the dispatch that wrote them; while dispatches of two
// installations of one integration overlap, their lines stay out of both entries (the isolate
// cannot tell them apart) and go to the host log under both event ids instead.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestHost, waitFor, type TestHost } from '../helpers/host.ts';

let host: TestHost;
const ids: string[] = [];

beforeAll(async () => {
  host = await startTestHost({ autoInstall: false });
  for (const space_selection of [['space_acme_docs'], ['space_acme_internal']]) {
    const response = await host.admin('/v1/integrations/event-log/installations', {
      method: 'POST',
      body: JSON.stringify({ organization: 'acme', target: 'organization', space_selection }),
    });
    ids.push((await response.json()).id);
  }
  await waitFor(async () => (await host.services.listEvents('event-log', { limit: 10 })).items.length >= 2);
});
afterAll(() => host?.close());

async function publish(spaceId: string): Promise<string> {
  const response = await host.admin('/v1/events', {
    method: 'POST',
    body: JSON.stringify({ type: 'space_content_updated', spaceId, revisionId: 'r1' }),
  });
  return (await response.json()).eventId;
}

describe('log attribution', () => {
  it("records a lone dispatch's lines in its own entry", async () => {
    const eventId = await publish('space_acme_docs');
    const entry = await host.services.getEvent('event-log', eventId);
    expect(entry.installationId).toBe(ids[0]);
    expect(entry.logs.map((line) => line.text)).toEqual(['space space_acme_docs updated to revision r1']);
  });

  it('keeps lines of overlapping dispatches of different installations out of both entries', async () => {
    const [a, b] = await Promise.all([publish('space_acme_docs'), publish('space_acme_internal')]);
    const entries = await Promise.all([host.services.getEvent('event-log', a), host.services.getEvent('event-log', b)]);
    for (const entry of entries) {
      // Either the dispatches did not overlap (own line only) or they did (no line at all):
      // never the other installation's line.
      const foreign = entry.installationId === ids[0] ? 'space_acme_internal' : 'space_acme_docs';
      expect(entry.logs.some((line) => line.text.includes(foreign))).toBe(false);
    }
  });
});

// `GET /v1/installations/:id/completions/:property` through the real host: the property's
// completion_url is dispatched as a fetch into the integration, and only a 200 JSON list of
// { label, value } strings comes back; anything else is a 502 naming the problem.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestHost, installationOf, type TestHost } from '../helpers/host.ts';
import { install } from '../helpers/lifecycle.ts';
import { withDevDefaults } from '../../host/config/dev-env.ts';

let host: TestHost;
let garbage: string;

beforeAll(async () => {
  host = await startTestHost({
    dirs: ['fixtures/integrations', 'test/fixtures/lifecycle'],
    env: { ...withDevDefaults(process.env).env, SETTINGS_DEMO_API_KEY: 'x' },
  });
  garbage = (
    await install(host, 'garbage-completions', { organization: 'acme', target: 'space', space: 'space_acme_docs' })
  ).json.id;
});
afterAll(() => host?.close());

async function complete(id: string, property: string): Promise<{ status: number; json: any }> {
  const response = await host.admin(`/v1/installations/${id}/completions/${property}`);
  return { status: response.status, json: await response.json() };
}

describe('completions of oauth-demo', () => {
  it('returns the options its /channels endpoint answers', async () => {
    const answer = await complete(installationOf(host, 'oauth-demo'), 'channel');
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({
      items: [
        { label: 'General', value: 'general' },
        { label: 'Releases', value: 'releases' },
        { label: 'Random', value: 'random' },
      ],
    });
  });

  it('is recorded in the event log as a fetch of the completion_url', async () => {
    const response = await host.admin('/v1/integrations/oauth-demo/events?limit=1');
    const [newest] = (await response.json()).items;
    expect(newest).toMatchObject({ type: 'fetch', status: 200, installationId: installationOf(host, 'oauth-demo') });
  });
});

describe('answers that are not a list of { label, value }', () => {
  it('keeps only label and value of a valid answer', async () => {
    expect(await complete(garbage, 'good')).toEqual({ status: 200, json: { items: [{ label: 'One', value: '1' }] } });
  });

  it.each([
    ['failing', /\/failing .*status 500/],
    ['text', /\/text .*not JSON/],
    ['unlabeled', /\/unlabeled .*item 2 must have required property 'label'/],
    ['object', /\/object .*the body must be array/],
  ])('%s → 502 ERR_COMPLETION_INVALID naming the problem', async (property, message) => {
    const answer = await complete(garbage, property);
    expect(answer.status).toBe(502);
    expect(answer.json.error.code).toBe('ERR_COMPLETION_INVALID');
    expect(answer.json.error.message).toMatch(message);
  });
});

describe('properties without completions', () => {
  it.each(['plain', 'count', 'missing'])('%s → 404 naming the property', async (property) => {
    const answer = await complete(garbage, property);
    expect(answer.status).toBe(404);
    expect(answer.json.error.message).toContain(`"${property}"`);
  });

  it('answers 404 for an unknown installation and 401 without the admin token', async () => {
    expect((await complete('inst_nope', 'channel')).status).toBe(404);
    expect((await fetch(`${host.url}/v1/installations/${garbage}/completions/good`)).status).toBe(401);
  });
});

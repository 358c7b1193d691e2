import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startTestHost, endpointOf, installationOf, waitFor, type TestHost } from '../helpers/host.ts';

let host: TestHost;

beforeAll(async () => {
  host = await startTestHost();
});
afterAll(() => host?.close());

describe('hello fixture (docs/http-api.md)', () => {
  it('answers POST with {"received":true} as JSON', async () => {
    const response = await fetch(endpointOf(host, 'hello'), {
      method: 'POST',
      body: '{"ping":1}',
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({ received: true });
  });

  it('answers GET with 405 "Method not allowed" as plain text', async () => {
    const response = await fetch(endpointOf(host, 'hello'));
    expect(response.status).toBe(405);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await response.text()).toBe('Method not allowed');
  });

  it('serves sub-paths of the public endpoint too', async () => {
    const response = await fetch(`${endpointOf(host, 'hello')}/deeper/path?x=1`, { method: 'POST' });
    expect(await response.json()).toEqual({ received: true });
  });

  it('answers 404 for an installation that belongs to another integration', async () => {
    const response = await fetch(`${host.url}/v1/integrations/hello/installations/${installationOf(host, 'counter')}`, {
      method: 'POST',
    });
    expect(response.status).toBe(404);
    expect((await response.json()).error.code).toBe('ERR_INSTALLATION_NOT_FOUND');
  });
});

describe('counter fixture', () => {
  it('counts up when its button action is sent twice', async () => {
    const id = installationOf(host, 'counter');
    const render = async (body: object) => {
      const response = await host.admin(`/v1/installations/${id}/render`, {
        method: 'POST',
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(200);
      return response.json();
    };
    const first = await render({ componentId: 'counter', props: {} });
    expect(first.type).toBe('element');
    expect(first.state).toEqual({ count: 0 });
    expect(first.element.type).toBe('block');
    const button = first.element.children.find((child: { type: string }) => child.type === 'button');
    expect(button.onPress).toEqual({ action: 'increment' });
    const second = await render({ componentId: 'counter', props: {}, state: first.state, action: button.onPress });
    expect(second.state).toEqual({ count: 1 });
    const third = await render({ componentId: 'counter', props: {}, state: second.state, action: button.onPress });
    expect(third.state).toEqual({ count: 2 });
    const text = third.element.children.find((child: { type: string }) => child.type === 'text');
    expect(text.children.join('')).toBe('Count: 2');
  });

  it('keeps the state when the action returns {}', async () => {
    const id = installationOf(host, 'counter');
    const response = await host.admin(`/v1/installations/${id}/render`, {
      method: 'POST',
      body: JSON.stringify({ componentId: 'counter', props: {}, state: { count: 7 }, action: { action: 'unknown' } }),
    });
    expect((await response.json()).state).toEqual({ count: 7 });
  });

  it('answers 404 for an unknown component', async () => {
    const id = installationOf(host, 'counter');
    const response = await host.admin(`/v1/installations/${id}/render`, {
      method: 'POST',
      body: JSON.stringify({ componentId: 'nope', props: {} }),
    });
    expect(response.status).toBe(404);
    expect((await response.json()).error.code).toBe('ERR_COMPONENT_NOT_FOUND');
  });
});

describe('event-log fixture', () => {
  it('receives space_content_updated for its organization and logs it with the event id', async () => {
    const response = await host.admin('/v1/events', {
      method: 'POST',
      body: JSON.stringify({ type: 'space_content_updated', spaceId: 'space_acme_docs', revisionId: 'rev_42' }),
    });
    expect(response.status).toBe(202);
    const body = await response.json();
    expect(body.eventId).toMatch(/^evt_/);
    expect(body.dispatched).toContainEqual({
      installationId: installationOf(host, 'event-log'),
      integration: 'event-log',
      status: 200,
    });
    // hello and counter do not handle the event (and lack the scope): they are not dispatched to.
    const names = body.dispatched.map((d: { integration: string }) => d.integration);
    expect(names).not.toContain('hello');
    expect(names).not.toContain('counter');
    await waitFor(() =>
      host.logs.some((line) =>
        line.includes(`[event-log ${body.eventId}] log: space space_acme_docs updated to revision rev_42`),
      ),
    );
  });

  it("does not receive events of another organization's space", async () => {
    const response = await host.admin('/v1/events', {
      method: 'POST',
      body: JSON.stringify({ type: 'space_content_updated', spaceId: 'space_globex_docs', revisionId: 'r' }),
    });
    expect((await response.json()).dispatched).toEqual([]);
  });

  it('rejects an event with a missing field, naming it', async () => {
    const response = await host.admin('/v1/events', {
      method: 'POST',
      body: JSON.stringify({ type: 'space_content_updated', spaceId: 's' }),
    });
    expect(response.status).toBe(400);
    expect((await response.json()).error.message).toMatch(/revisionId/);
  });
});

describe('integration listing', () => {
  it('lists the fixtures as ready', async () => {
    const response = await host.admin('/v1/integrations');
    const { items } = await response.json();
    const names = items.map((item: { name: string; status: string }) => `${item.name}:${item.status}`);
    expect(names).toEqual(expect.arrayContaining(['hello:ready', 'counter:ready', 'event-log:ready']));
  });
});

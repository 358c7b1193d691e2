// createIntegration() inside a real isolate: how each envelope type is answered, the seed's
// example handler, errors, verdict headers, components and waitUntil.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RUNTIME_VERDICT_HEADER } from '../../../sandbox-api/runtime/contract.ts';
import { Harness, envelope, header, json, text } from './harness.ts';

let harness: Harness;
beforeEach(async () => {
  harness = await Harness.create();
});
afterEach(() => harness.dispose());

const ECHO = `
import { createIntegration } from 'sandbox-api';
export default createIntegration({
  async fetch(request, context) {
    const bytes = new Uint8Array(await request.arrayBuffer());
    return Response.json({
      method: request.method,
      url: request.url,
      headers: [...request.headers],
      body: Array.from(bytes),
      environment: context.environment,
      hasWaitUntil: typeof context.waitUntil === 'function',
    });
  },
});`;

const SEED_EXAMPLE = `
import { createIntegration } from 'sandbox-api';
export default createIntegration({
  async fetch(request) {
    if (request.method !== 'POST') return new Response('Method not allowed', { status: 405 });
    return new Response(JSON.stringify({ received: true }), { headers: { 'Content-Type': 'application/json' } });
  },
});`;

const fetchEvent = (method: string, url: string, headers: [string, string][] = [], body: Uint8Array | null = null) =>
  envelope({ type: 'fetch', request: { method, url, headers } }, body, { installation: { id: 'inst_1' } });

describe('fetch events', () => {
  it('hands the handler the original method, url, headers and exact body bytes', async () => {
    await harness.loadSource(ECHO);
    const body = new Uint8Array([0, 255, 128, 10, 0xc3, 0x28]);
    const url = 'https://host.example/v1/integrations/x/installations/i/hook?a=1&b=%20';
    const response = await harness.dispatch(
      fetchEvent(
        'PATCH',
        url,
        [
          ['X-Signature', 'abc'],
          ['content-type', 'application/octet-stream'],
        ],
        body,
      ),
    );
    expect(response.status).toBe(200);
    expect(json(response)).toEqual({
      method: 'PATCH',
      url,
      headers: [
        ['content-type', 'application/octet-stream'],
        ['x-signature', 'abc'],
      ],
      body: [0, 255, 128, 10, 0xc3, 0x28],
      environment: { installation: { id: 'inst_1' } },
      hasWaitUntil: true,
    });
    expect(response.verdict).toBeUndefined();
  });

  it('gives GET requests no body even when the envelope carries bytes', async () => {
    await harness.loadSource(ECHO);
    const response = await harness.dispatch(fetchEvent('GET', 'https://h.example/', [], new Uint8Array([1, 2])));
    expect(json(response)).toMatchObject({ method: 'GET', body: [] });
  });

  it('answers like the seed example: 405 for GET, 200 {"received":true} for POST', async () => {
    await harness.loadSource(SEED_EXAMPLE);
    const rejected = await harness.dispatch(fetchEvent('GET', 'https://h.example/'));
    expect(rejected.status).toBe(405);
    expect(text(rejected)).toBe('Method not allowed');
    expect(header(rejected, 'content-type')).toBe('text/plain;charset=UTF-8');
    const accepted = await harness.dispatch(
      fetchEvent('POST', 'https://h.example/', [], new TextEncoder().encode('{}')),
    );
    expect(accepted.status).toBe(200);
    expect(header(accepted, 'content-type')).toBe('application/json');
    expect(json(accepted)).toEqual({ received: true });
  });

  it('answers 406 no-handler when the integration has no fetch handler', async () => {
    await harness.loadSource(`import { createIntegration } from 'sandbox-api'; export default createIntegration({});`);
    const response = await harness.dispatch(fetchEvent('GET', 'https://h.example/'));
    expect(response.status).toBe(406);
    expect(response.verdict).toBe('no-handler');
    expect(header(response, RUNTIME_VERDICT_HEADER)).toBeUndefined();
    expect(json(response)).toEqual({ error: 'No handler for event "fetch"' });
  });
});

describe('errors', () => {
  it('answers an ExposableError with its status and message', async () => {
    await harness.loadSource(`
      import { createIntegration, ExposableError } from 'sandbox-api';
      export default createIntegration({ async fetch() { throw new ExposableError("I'm a teapot", 418); } });`);
    const response = await harness.dispatch(fetchEvent('GET', 'https://h.example/'));
    expect(response.status).toBe(418);
    expect(json(response)).toEqual({ error: "I'm a teapot" });
    expect(response.verdict).toBeUndefined();
  });

  it('defaults ExposableError to 400', async () => {
    await harness.loadSource(`
      import { createIntegration, ExposableError } from 'sandbox-api';
      export default createIntegration({ events: { space_view() { throw new ExposableError('bad input'); } } });`);
    const response = await harness.dispatch(envelope({ type: 'space_view' }));
    expect(response.status).toBe(400);
    expect(json(response)).toEqual({ error: 'bad input' });
  });

  it('recognizes an ExposableError from another copy of sandbox-api by its brand', async () => {
    await harness.loadSource(`
      import { createIntegration } from 'sandbox-api';
      class Foreign extends Error { status = 409; }
      Object.defineProperty(Foreign.prototype, Symbol.for('sandbox-api.exposable-error'), { value: true });
      export default createIntegration({ async fetch() { throw new Foreign('conflict'); } });`);
    const response = await harness.dispatch(fetchEvent('GET', 'https://h.example/'));
    expect(response.status).toBe(409);
    expect(json(response)).toEqual({ error: 'conflict' });
  });

  it('answers any other throw with a generic 500 and logs the error for the author', async () => {
    await harness.loadSource(`
      import { createIntegration } from 'sandbox-api';
      export default createIntegration({ async fetch() { throw new Error('database password is hunter2'); } });`);
    const response = await harness.dispatch(fetchEvent('GET', 'https://h.example/'));
    expect(response.status).toBe(500);
    expect(json(response)).toEqual({ error: 'Internal server error' });
    expect(response.verdict).toBe('guest-error');
    expect(text(response)).not.toContain('hunter2');
    expect(
      harness.logs.some((line) => line.level === 'error' && line.text.includes('Error: database password is hunter2')),
    ).toBe(true);
  });

  it('answers 500 guest-error when the handler returns something that is not a Response', async () => {
    await harness.loadSource(`
      import { createIntegration } from 'sandbox-api';
      export default createIntegration({ async fetch() { return { status: 200, body: 'hi' }; } });`);
    const response = await harness.dispatch(fetchEvent('GET', 'https://h.example/'));
    expect(response.status).toBe(500);
    expect(json(response)).toEqual({ error: 'Internal server error' });
    expect(response.verdict).toBe('guest-error');
    expect(harness.logs.at(-1)?.text).toMatch(/must return a Response.*status: 200/);
  });

  it(
    'answers 500 bad-entry and explains the default export when it is neither createIntegration() nor a module ' +
      'worker',
    async () => {
      await harness.loadSource(`export default { handle() { return new Response('x'); } };`);
      const response = await harness.dispatch(fetchEvent('GET', 'https://h.example/'));
      expect(response.status).toBe(500);
      expect(response.verdict).toBe('bad-entry');
      expect(harness.logs.at(-1)).toMatchObject({ level: 'error' });
      expect(harness.logs.at(-1)?.text).toContain('createIntegration()');
    },
  );

  it('never rejects dispatch, even for a malformed envelope', async () => {
    await harness.loadSource(SEED_EXAMPLE);
    const response = await harness.dispatch({ event: null, environment: {}, fetchBody: null } as never);
    expect(response.status).toBe(500);
    expect(response.verdict).toBe('guest-error');
  });
});

describe('platform events', () => {
  const EVENTS = `
    import { createIntegration } from 'sandbox-api';
    export default createIntegration({
      events: {
        async space_content_updated(event, context) {
          console.log('space', event.spaceId, 'revision', event.revisionId, context.environment.installation.id);
        },
        async installation_setup() { return new Response('custom', { status: 202 }); },
      },
    });`;

  it('runs the handler with the event and context and answers 200 {}', async () => {
    await harness.loadSource(EVENTS);
    const response = await harness.dispatch(
      envelope({ type: 'space_content_updated', spaceId: 'sp1', revisionId: 'r2' }, null, {
        installation: { id: 'i9' },
      }),
    );
    expect(response.status).toBe(200);
    expect(json(response)).toEqual({});
    expect(harness.logs).toContainEqual({ level: 'log', text: 'space sp1 revision r2 i9' });
  });

  it("passes the handler's own Response through", async () => {
    await harness.loadSource(EVENTS);
    const response = await harness.dispatch(envelope({ type: 'installation_setup', status: 'active' }));
    expect(response.status).toBe(202);
    expect(text(response)).toBe('custom');
  });

  it('answers 406 no-handler for an event type without a handler', async () => {
    await harness.loadSource(EVENTS);
    const response = await harness.dispatch(envelope({ type: 'space_view' }));
    expect(response.status).toBe(406);
    expect(json(response)).toEqual({ error: 'No handler for event "space_view"' });
    expect(response.verdict).toBe('no-handler');
  });

  it('does not treat inherited properties as handlers', async () => {
    await harness.loadSource(EVENTS);
    const response = await harness.dispatch(envelope({ type: 'toString' }));
    expect(response.status).toBe(406);
  });
});

describe('ui_render', () => {
  const COUNTER = `
    import { createComponent, createIntegration } from 'sandbox-api';
    const counter = createComponent({
      componentId: 'counter',
      initialState: (props: { start?: number }) => ({ count: props.start ?? 0 }),
      async action(element, action) {
        if (action.action === 'increment') return { state: { count: element.state.count + 1 } };
        if (action.action === 'done') return { returnValue: { final: element.state.count } };
        return {};
      },
      async render(element) {
        return (
          <block>
            <text>Count: {element.state.count}</text>
            {element.state.count > 2 && <hint>That is a lot</hint>}
            <button label="Increment" onPress={{ action: 'increment' }} />
          </block>
        );
      },
    });
    export default createIntegration({ components: [counter] });`;

  const render = (fields: Record<string, unknown>) =>
    envelope({ type: 'ui_render', componentId: 'counter', props: { start: 1 }, ...fields });

  it('renders with initialState(props) and answers element, state and props', async () => {
    await harness.loadSource(COUNTER, 'tsx');
    const response = await harness.dispatch(render({}));
    expect(response.status).toBe(200);
    expect(json(response)).toEqual({
      type: 'element',
      element: {
        type: 'block',
        children: [
          { type: 'text', children: ['Count: ', '1'] },
          { type: 'button', label: 'Increment', onPress: { action: 'increment' } },
        ],
      },
      state: { count: 1 },
      props: { start: 1 },
    });
  });

  it('replaces the state with an action result {state} and keeps it for {}', async () => {
    await harness.loadSource(COUNTER, 'tsx');
    const incremented = json(
      await harness.dispatch(render({ state: { count: 2 }, action: { action: 'increment' } })),
    ) as Record<string, any>;
    expect(incremented.state).toEqual({ count: 3 });
    expect(incremented.element.children[1]).toEqual({ type: 'hint', children: ['That is a lot'] });
    const unchanged = json(
      await harness.dispatch(render({ state: { count: 2 }, action: { action: 'other' } })),
    ) as Record<string, any>;
    expect(unchanged.state).toEqual({ count: 2 });
  });

  it('answers {type:"complete", returnValue} when the action returns a returnValue', async () => {
    await harness.loadSource(COUNTER, 'tsx');
    const response = await harness.dispatch(render({ state: { count: 5 }, action: { action: 'done' } }));
    expect(json(response)).toEqual({ type: 'complete', returnValue: { final: 5 } });
  });

  it('answers 404 component-not-found for an unknown componentId', async () => {
    await harness.loadSource(COUNTER, 'tsx');
    const response = await harness.dispatch(render({ componentId: 'nope' }));
    expect(response.status).toBe(404);
    expect(json(response)).toEqual({ error: 'Unknown component "nope"' });
    expect(response.verdict).toBe('component-not-found');
  });
});

describe('waitUntil and drain', () => {
  it('lets work finish after the response and resolves drain once it has settled', async () => {
    await harness.loadSource(`
      import { createIntegration } from 'sandbox-api';
      export default createIntegration({
        async fetch(request, context) {
          // Finishes only when the test lets it (globalThis.release), however long the answer takes.
          context.waitUntil(new Promise((resolve) => { globalThis.release = () => setTimeout(() => {
            console.log('late work done'); resolve(undefined); }, 1); }));
          context.waitUntil(Promise.reject(new Error('background failure')));
          return new Response('early');
        },
      });`);
    const event = fetchEvent('GET', 'https://h.example/');
    const response = await harness.dispatch(event);
    expect(text(response)).toBe('early');
    expect(harness.logs.some((line) => line.text === 'late work done')).toBe(false);
    await harness.evaluate('globalThis.release()');
    await harness.drain(event.event.eventId);
    expect(harness.logs).toContainEqual({ level: 'log', text: 'late work done' });
    expect(harness.logs.some((line) => line.level === 'error' && line.text.includes('background failure'))).toBe(true);
  });

  it('resolves drain at once for an event without waitUntil work', async () => {
    await harness.loadSource(SEED_EXAMPLE);
    await expect(harness.drain('unknown-event')).resolves.toBeUndefined();
  });
});

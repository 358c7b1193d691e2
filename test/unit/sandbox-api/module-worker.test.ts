// Module workers in a real isolate: a default export `{ fetch(request, env, ctx) }` receives every
// envelope as the seed's wire form (`POST <origin>/v1`, multipart `event`, `environment` and, with
// a body, a `fetch-body` file part with the exact bytes), its Response is the answer, ctx.waitUntil
// is the runtime's per-event tracking, and a 406 to a non-fetch event is the "no handler" verdict.
// The second half runs @gitbook/runtime and @gitbook/api themselves (pinned devDependencies).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BridgeRequest } from '../../../sandbox-api/runtime/contract.ts';
import { Harness, envelope, header, json, text } from './harness.ts';

const ENVIRONMENT = {
  apiEndpoint: 'http://127.0.0.1:8787',
  apiTokens: { installation: 'inst-token' },
  integration: { name: 'probe', version: 3 },
  installation: { id: 'inst_1', configuration: {} },
};

let harness: Harness;
afterEach(() => harness.dispose());

/** A hand-written module worker (no library) that reports what it received. */
const ECHO_WORKER = `
export default {
  async fetch(request, env, ctx) {
    const form = await request.formData();
    const body = form.get('fetch-body');
    const event = JSON.parse(form.get('event'));
    // 'later' leaves work that only a 'release' event finishes (no timer racing the answer).
    if (event.type === 'later') ctx.waitUntil(new Promise((resolve) => { globalThis.releaseLater = resolve;
      }).then(() => console.log('later done')));
    if (event.type === 'release') { globalThis.releaseLater(); return new Response('released'); }
    if (event.type === 'refuse') return new Response('{"error":"no"}', { status: 406 });
    if (event.type === 'not-a-response') return { status: 200 };
    return Response.json({
      url: request.url, method: request.method, contentType: request.headers.get('content-type'),
      keys: [...form.keys()], event, environment: JSON.parse(form.get('environment')),
      body: body === null ? null : { isFile: body instanceof File, name: body.name, type: body.type,
        bytes: [...await body.bytes()] },
      envArg: env, ctxKeys: Object.keys(ctx), frozenCtx: Object.isFrozen(ctx),
    });
  },
};`;

describe('a module worker', () => {
  beforeEach(async () => {
    harness = await Harness.create();
    await harness.loadSource(ECHO_WORKER);
  });

  it(
    'gets a fetch event as POST <api origin>/v1 multipart, the ' + 'body as an exact file part, headers as one object',
    async () => {
      const bytes = new Uint8Array([0, 255, 13, 10, 45, 45, 45, 45]);
      const event = {
        type: 'fetch',
        request: {
          method: 'POST',
          url: 'https://public.test/hook?x=1',
          headers: [
            ['content-type', 'application/octet-stream'],
            ['x-multi', 'a'],
            ['x-multi', 'b'],
          ] as [string, string][],
        },
      };
      const response = await harness.dispatch(envelope(event, bytes, ENVIRONMENT));
      expect(response.status).toBe(200);
      const seen = json(response) as Record<string, any>;
      expect(seen.url).toBe('http://127.0.0.1:8787/v1');
      expect(seen.method).toBe('POST');
      expect(seen.contentType).toMatch(/^multipart\/form-data; boundary=/);
      expect(seen.keys).toEqual(['event', 'environment', 'fetch-body']);
      // GitBook's FetchRequest spells the method in lower case.
      expect(seen.event).toEqual({
        eventId: expect.any(String),
        type: 'fetch',
        request: {
          method: 'post',
          url: 'https://public.test/hook?x=1',
          headers: { 'content-type': 'application/octet-stream', 'x-multi': 'a, b' },
        },
      });
      expect(seen.environment).toEqual(ENVIRONMENT);
      expect(seen.body).toEqual({ isFile: true, name: 'fetch-body', type: '', bytes: [...bytes] });
      expect(seen.envArg).toEqual({});
      expect(seen.ctxKeys).toEqual(['waitUntil', 'passThroughOnException']);
      expect(seen.frozenCtx).toBe(true);
    },
  );

  it('gets no fetch-body part at all for a GET, nor for an event without a body', async () => {
    const get = json(
      await harness.dispatch(
        envelope(
          { type: 'fetch', request: { method: 'GET', url: 'https://public.test/', headers: [] } },
          new Uint8Array(0),
          ENVIRONMENT,
        ),
      ),
    ) as Record<string, any>;
    expect(get.keys).toEqual(['event', 'environment']);
    const setup = json(
      await harness.dispatch(envelope({ type: 'installation_setup', status: 'active' }, null, ENVIRONMENT)),
    ) as Record<string, any>;
    expect(setup.keys).toEqual(['event', 'environment']);
    expect(setup.body).toBeNull();
  });

  it('keeps ctx.waitUntil work running after the answer, drained by the runtime', async () => {
    const value = envelope({ type: 'later' }, null, ENVIRONMENT);
    const answer = (await harness.dispatch(value)) as unknown as { waitUntilPending: boolean };
    expect(answer.waitUntilPending).toBe(true);
    expect(harness.logs.some((line) => line.text === 'later done')).toBe(false);
    await harness.dispatch(envelope({ type: 'release' }, null, ENVIRONMENT));
    await harness.drain(value.event.eventId);
    expect(harness.logs.some((line) => line.text === 'later done')).toBe(true);
  });

  it('answers 406 to a non-fetch event with the "no handler" verdict, and 406 to a fetch without one', async () => {
    const event = await harness.dispatch(envelope({ type: 'refuse' }, null, ENVIRONMENT));
    expect([event.status, event.verdict]).toEqual([406, 'no-handler']);
    const worker = await Harness.create();
    try {
      await worker.loadSource('export default { fetch: () => new Response("nope", { status: 406 }) };');
      const fetched = await worker.dispatch(
        envelope(
          { type: 'fetch', request: { method: 'GET', url: 'https://public.test/', headers: [] } },
          null,
          ENVIRONMENT,
        ),
      );
      expect([fetched.status, fetched.verdict]).toEqual([406, undefined]);
    } finally {
      worker.dispose();
    }
  });

  it('makes a non-Response answer a logged 500', async () => {
    const response = await harness.dispatch(envelope({ type: 'not-a-response' }, null, ENVIRONMENT));
    expect([response.status, response.verdict, json(response)]).toEqual([
      500,
      'guest-error',
      { error: 'Internal server error' },
    ]);
    expect(harness.logs.at(-1)?.text).toMatch(
      /^The integration's default export fetch\(request, env, ctx\) must return a Response/,
    );
  });
});

describe('a default export that is neither', () => {
  it('is a bad entry whose log names both accepted shapes', async () => {
    harness = await Harness.create();
    await harness.loadSource('export default { handle() {} };');
    const response = await harness.dispatch(envelope({ type: 'installation_setup' }, null, ENVIRONMENT));
    expect([response.status, response.verdict]).toEqual([500, 'bad-entry']);
    expect(harness.logs.at(-1)?.text).toMatch(
      /createIntegration\(\).*or a module worker: an object with a fetch\(request, env, ctx\) method/,
    );
  });
});

describe('@gitbook/runtime and @gitbook/api in the isolate', () => {
  const apiCalls: BridgeRequest[] = [];
  beforeEach(async () => {
    apiCalls.length = 0;
    harness = await Harness.create({
      fetch: (request) => {
        apiCalls.push(request);
        const known = request.url.endsWith('/v1/spaces/space_1');
        const body = known ? { id: 'space_1', title: 'Docs' } : { error: { code: 404, message: 'no such space' } };
        return {
          ok: true,
          value: {
            status: known ? 200 : 404,
            statusText: known ? 'OK' : 'Not Found',
            headers: [['content-type', 'application/json']],
            body: new TextEncoder().encode(JSON.stringify(body)),
            url: request.url,
            redirected: false,
          },
        };
      },
    });
    await harness.loadSource(
      `
      import { createComponent, createIntegration, ExposableError } from '@gitbook/runtime';
      import { GitBookAPIError } from '@gitbook/api';
      const counter = createComponent({
        componentId: 'counter',
        initialState: (props) => ({ count: props.start ?? 0 }),
        async action(element, action) {
          if (action.action === 'increment') return { state: { count: element.state.count + 1 } };
          if (action.action === 'done') return { type: 'complete', returnValue: { final: element.state.count } };
        },
        async render(element) {
          element.setCache({ maxAge: 30 });
          return <block><text>{'Count: ' + element.state.count}</text><button label="+1" onPress={{
            action: 'increment' }} /></block>;
        },
      });
      export default createIntegration({
        async fetch(request, context) {
          if (new URL(request.url).pathname === '/teapot') throw new ExposableError('short and stout', 418);
          const space = await context.api.spaces.getSpaceById('space_1');
          let missing;
          try { await context.api.spaces.getSpaceById('space_2'); } catch (error) {
            missing = { isApiError: error instanceof GitBookAPIError, code: error.code, message: error.message };
          }
          return Response.json({ mode: MODE, method: request.method, body: await request.text(),
            title: space.data.title, status: space.status, missing });
        },
        components: [counter],
        events: { installation_setup: async () => {} },
        async fetch_published_script(event, { environment }) {
          return new Response('console.log(' + JSON.stringify(environment.installation.id + ':' + event.siteId) + ')', {
            headers: { 'content-type': 'application/javascript' } });
        },
      });`,
      'tsx',
      { jsxImportSource: '@gitbook/runtime' },
    );
  });

  it(
    'answers a fetch event through context.api (GitBookAPI ' + 'over the guest fetch), MODE defined as production',
    async () => {
      const request = {
        method: 'PUT',
        url: 'https://public.test/x',
        headers: [['content-type', 'text/plain']] as [string, string][],
      };
      const response = await harness.dispatch(
        envelope({ type: 'fetch', request }, new TextEncoder().encode('héllo'), ENVIRONMENT),
      );
      expect(json(response)).toEqual({
        mode: 'production',
        method: 'PUT',
        body: 'héllo',
        title: 'Docs',
        status: 200,
        missing: {
          isApiError: true,
          code: 404,
          message: 'GitBook API failed with [404] http://127.0.0.1:8787/v1/spaces/space_2: no such space',
        },
      });
      expect(apiCalls.map((call) => [call.method, call.url, Object.fromEntries(call.headers)])).toEqual([
        [
          'GET',
          'http://127.0.0.1:8787/v1/spaces/space_1',
          { authorization: 'Bearer inst-token', 'user-agent': 'integration-probe/3' },
        ],
        [
          'GET',
          'http://127.0.0.1:8787/v1/spaces/space_2',
          { authorization: 'Bearer inst-token', 'user-agent': 'integration-probe/3' },
        ],
      ]);
    },
  );

  it(
    'passes an ExposableError status through, and 406 with ' + 'the no-handler verdict for an unhandled event',
    async () => {
      const teapot = await harness.dispatch(
        envelope(
          { type: 'fetch', request: { method: 'GET', url: 'https://public.test/teapot', headers: [] } },
          null,
          ENVIRONMENT,
        ),
      );
      expect([teapot.status, json(teapot)]).toEqual([418, { error: 'short and stout' }]);
      const setup = await harness.dispatch(
        envelope({ type: 'installation_setup', status: 'active' }, null, ENVIRONMENT),
      );
      expect([setup.status, text(setup), setup.verdict]).toEqual([200, 'OK', undefined]);
      const unknown = await harness.dispatch(
        envelope({ type: 'space_content_updated', spaceId: 's' }, null, ENVIRONMENT),
      );
      expect([unknown.status, unknown.verdict, json(unknown)]).toEqual([
        406,
        'no-handler',
        { error: 'Integration does not handle "space_content_updated" events' },
      ]);
    },
  );

  it('renders a component and round-trips its state through an action, with the cache header', async () => {
    const first = await harness.dispatch(
      envelope(
        {
          type: 'ui_render',
          componentId: 'counter',
          props: { start: 2 },
          context: { type: 'document', theme: 'light', spaceId: 's', editable: true },
        },
        null,
        ENVIRONMENT,
      ),
    );
    expect(header(first, 'cache-control')).toBe('max-age=30');
    const rendered = json(first) as Record<string, any>;
    expect(rendered).toEqual({
      type: 'element',
      state: { count: 2 },
      props: { start: 2 },
      element: {
        type: 'block',
        children: [
          { type: 'text', children: ['Count: 2'] },
          { type: 'button', label: '+1', onPress: { action: 'increment' } },
        ],
      },
    });
    const next = json(
      await harness.dispatch(
        envelope(
          {
            type: 'ui_render',
            componentId: 'counter',
            props: rendered.props,
            state: rendered.state,
            action: { action: 'increment' },
          },
          null,
          ENVIRONMENT,
        ),
      ),
    ) as Record<string, any>;
    expect(next.state).toEqual({ count: 3 });
    const done = json(
      await harness.dispatch(
        envelope(
          { type: 'ui_render', componentId: 'counter', props: {}, state: next.state, action: { action: 'done' } },
          null,
          ENVIRONMENT,
        ),
      ),
    );
    expect(done).toEqual({ type: 'complete', returnValue: { final: 3 } });
  });

  it('answers fetch_published_script with the script', async () => {
    const response = await harness.dispatch(
      envelope({ type: 'fetch_published_script', siteId: 'site_1', installationId: 'inst_1' }, null, ENVIRONMENT),
    );
    expect([response.status, header(response, 'content-type'), text(response)]).toEqual([
      200,
      'application/javascript',
      'console.log("inst_1:site_1")',
    ]);
  });
});

import { describe, expect, it } from 'vitest';
import { ADMIN, jsonResponse, sandboxResponse, useFakeApp } from './fake-services.ts';

const t = useFakeApp();

const ELEMENT = {
  type: 'block',
  children: [
    { type: 'text', children: ['Count: 1'] },
    { type: 'button', label: 'Increment', onPress: { action: 'increment' } },
  ],
};

function render(body: unknown, id = 'inst-1'): Promise<Response> {
  return fetch(`${t.app.url}/v1/installations/${id}/render`, {
    method: 'POST',
    headers: { ...ADMIN, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

async function errorOf(
  res: Response,
  status: number,
): Promise<{ code: string; message: string; details?: { pointer: string; message: string }[] }> {
  const body = await res.json();
  expect(res.status, JSON.stringify(body)).toBe(status);
  return body.error;
}

describe('POST /v1/installations/:id/render', () => {
  it('dispatches a ui_render event and returns a valid element answer', async () => {
    const answer = { type: 'element', element: ELEMENT, state: { count: 1 }, props: { start: 0 } };
    t.services.respond = () => jsonResponse(200, answer);
    const res = await render({
      componentId: 'counter',
      props: { start: 0 },
      action: { action: 'increment', extra: 1 },
      context: { locale: 'en' },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(answer);
    expect(t.services.dispatchCalls).toHaveLength(1);
    expect(t.services.dispatchCalls[0]).toEqual({
      installationId: 'inst-1',
      event: {
        type: 'ui_render',
        installationId: 'inst-1',
        componentId: 'counter',
        props: { start: 0 },
        action: { action: 'increment', extra: 1 },
        context: { locale: 'en' },
      },
      fetchBody: null,
    });
  });

  it('defaults props to {} and returns a completion', async () => {
    t.services.respond = () => jsonResponse(200, { type: 'complete', returnValue: { done: true } });
    const res = await render({ componentId: 'counter' });
    expect(await res.json()).toEqual({ type: 'complete', returnValue: { done: true } });
    expect(t.services.dispatchCalls[0].event.props).toEqual({});
  });

  it('answers 404 ERR_COMPONENT_NOT_FOUND on the runtime verdict', async () => {
    t.services.respond = () => jsonResponse(404, { error: 'Component not found' });
    t.services.verdict = 'component-not-found';
    const error = await errorOf(await render({ componentId: 'ghost' }), 404);
    expect(error.code).toBe('ERR_COMPONENT_NOT_FOUND');
    expect(error.message).toContain('ghost');
  });

  it('answers 422 ERR_CONTENTKIT_INVALID with pointers for invalid output', async () => {
    const element = { type: 'block', children: [{ type: 'button', label: 'x' }] };
    t.services.respond = () => jsonResponse(200, { type: 'element', element, state: {}, props: {} });
    const error = await errorOf(await render({ componentId: 'counter' }), 422);
    expect(error.code).toBe('ERR_CONTENTKIT_INVALID');
    expect(error.message).toBe(
      "the component's output is not valid ContentKit: /element/children/0/onPress: is required on <button>",
    );
    expect(error.details).toEqual([{ pointer: '/element/children/0/onPress', message: 'is required on <button>' }]);
  });

  it('passes an ExposableError status and JSON body through', async () => {
    t.services.respond = () => jsonResponse(409, { error: 'already done' });
    const res = await render({ componentId: 'counter' });
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual({ error: 'already done' });
  });

  it('hides a 5xx behind 502 without internals', async () => {
    t.services.respond = () => jsonResponse(500, { error: 'Internal server error', stack: 'at /secret/file.ts:1' });
    const error = await errorOf(await render({ componentId: 'counter' }), 502);
    expect(error).toEqual({ code: 'ERR_SANDBOX_BAD_RESPONSE', message: 'the integration failed to render' });
  });

  it('answers 502 naming what is wrong with a malformed 2xx answer', async () => {
    const cases: [ReturnType<typeof sandboxResponse>, RegExp][] = [
      [sandboxResponse(200, [], 'not json'), /is not JSON/],
      [jsonResponse(200, [1]), /is not a JSON object/],
      [jsonResponse(200, { type: 'other' }), /"type" other than "element" or "complete"/],
      [jsonResponse(200, { type: 'element', state: {}, props: {} }), /no "element"/],
      [jsonResponse(200, { type: 'element', element: ELEMENT, props: {} }), /no "state" object/],
    ];
    for (const [response, message] of cases) {
      t.services.respond = () => response;
      const error = await errorOf(await render({ componentId: 'counter' }), 502);
      expect(error.code).toBe('ERR_SANDBOX_BAD_RESPONSE');
      expect(error.message).toMatch(message);
    }
  });

  it('validates the request body, naming the field', async () => {
    expect((await errorOf(await render({ props: {} }), 400)).message).toBe('componentId is required');
    expect((await errorOf(await render({ componentId: 'c', props: [] }), 400)).message).toBe('props must be object');
    expect((await errorOf(await render({ componentId: 'c', action: {} }), 400)).message).toBe(
      'action.action is required',
    );
    expect((await errorOf(await render({ componentId: 'c', colour: 'red' }), 400)).message).toBe(
      'colour is not a known field',
    );
    expect(t.services.dispatchCalls).toHaveLength(0);
  });

  it('answers 404 for an unknown installation', async () => {
    expect((await errorOf(await render({ componentId: 'c' }, 'ghost'), 404)).code).toBe('ERR_INSTALLATION_NOT_FOUND');
  });

  it("gives a sealed integration's links into its own endpoint the connect ticket of that installation", async () => {
    const endpoint = 'http://host.test:8787/v1/integrations/hello/installations/inst-1';
    const button = (url: string) => ({ type: 'button', label: 'Connect', onPress: { action: '@ui.url.open', url } });
    const element = {
      type: 'block',
      children: [button(`${endpoint}/oauth`), button('https://github.com/apps/x/installations/new')],
    };
    t.services.respond = () => jsonResponse(200, { type: 'element', element, state: {}, props: {} });
    const untouched = await (await render({ componentId: 'config' })).json();
    expect(untouched.element).toEqual(element);
    t.services.sealed.add('hello');
    const ticketed = await (await render({ componentId: 'config' })).json();
    const opened = new URL(ticketed.element.children[0].onPress.url);
    expect(`${opened.origin}${opened.pathname}`).toBe(`${endpoint}/oauth`);
    expect(t.services.oauthSeal.ticketProblem('inst-1', opened.searchParams.get('ticket')!)).toBeUndefined();
    expect(ticketed.element.children[1]).toEqual(element.children[1]);
  });
});

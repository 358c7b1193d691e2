// Request and Response (runtime) against Node's (undici's) classes where they overlap.
import { describe, expect, it } from 'vitest';
import { createRequestClass } from '../../../sandbox-api/runtime/request.ts';
import { createResponseClass } from '../../../sandbox-api/runtime/response.ts';
import { URLSearchParams as RuntimeParams } from '../../../sandbox-api/runtime/url-search-params.ts';
import { urlRecord } from './harness.ts';
import { bindBodies } from '../../../sandbox-api/runtime/body.ts';
import { createStreams } from '../../../sandbox-api/runtime/modules/streams.ts';

// The runtime's streams module, as an isolate loads it on first use, here in Node.
const streams = createStreams({});
bindBodies({ streams: () => streams, loadedStreams: () => streams });

const RuntimeRequest = createRequestClass(urlRecord);
const { Response: RuntimeResponse, responseFromBridge, serializeResponse } = createResponseClass(urlRecord);

const outcome = (fn: () => unknown): unknown => {
  try {
    return fn();
  } catch (error) {
    return (error as Error).name;
  }
};

describe('Request (runtime)', () => {
  it('normalizes methods and rejects forbidden or invalid ones like Node', () => {
    for (const method of [
      'get',
      'post',
      'Patch',
      'delete',
      'options',
      'head',
      'put',
      'CUSTOM',
      'connect',
      'TRACE',
      'bad method',
      '',
    ]) {
      const ours = outcome(() => new RuntimeRequest('https://a.example/', { method }).method);
      const node = outcome(() => new Request('https://a.example/', { method }).method);
      expect(ours, method).toEqual(node);
    }
  });

  it('needs an absolute URL without credentials', () => {
    expect(() => new RuntimeRequest('/relative')).toThrow(TypeError);
    expect(() => new RuntimeRequest('https://user:pw@a.example/')).toThrow(TypeError);
    expect(new RuntimeRequest('HTTPS://A.EXAMPLE/x/../y').url).toBe('https://a.example/y');
  });

  it('sets body content types like Node and refuses bodies on GET/HEAD', async () => {
    const bodies: [unknown, unknown][] = [
      ['text', 'text'],
      [new RuntimeParams('a=1 2'), new URLSearchParams('a=1 2')],
      [new Uint8Array([1, 2]), new Uint8Array([1, 2])],
      [new Uint8Array([9, 1, 2, 9]).subarray(1, 3), new Uint8Array([9, 1, 2, 9]).subarray(1, 3)],
      [new ArrayBuffer(2), new ArrayBuffer(2)],
    ];
    for (const [oursBody, nodeBody] of bodies) {
      const ours = new RuntimeRequest('https://a.example/', { method: 'POST', body: oursBody });
      const node = new Request('https://a.example/', { method: 'POST', body: nodeBody as BodyInit });
      expect(ours.headers.get('content-type')).toBe(node.headers.get('content-type'));
      expect(await ours.bytes()).toEqual(new Uint8Array(await node.arrayBuffer()));
    }
    expect(() => new RuntimeRequest('https://a.example/', { body: 'x' })).toThrow(TypeError);
    expect(() => new RuntimeRequest('https://a.example/', { method: 'HEAD', body: 'x' })).toThrow(TypeError);
  });

  it('reads a body once, clones before reading, and takes over the body of a Request input', async () => {
    const original = new RuntimeRequest('https://a.example/', {
      method: 'PUT',
      body: '{"a":1}',
      headers: { 'x-k': 'v' },
      redirect: 'manual',
    });
    const clone = original.clone();
    expect(await original.json()).toEqual({ a: 1 });
    expect(original.bodyUsed).toBe(true);
    await expect(original.text()).rejects.toThrow(TypeError);
    expect(() => original.clone()).toThrow(TypeError);
    const derived = new RuntimeRequest(clone, { headers: { 'x-other': '1' } });
    expect(clone.bodyUsed).toBe(true);
    expect([derived.method, derived.redirect, [...derived.headers], await derived.text()]).toEqual([
      'PUT',
      'manual',
      [['x-other', '1']],
      '{"a":1}',
    ]);
  });

  it('has a null body and an empty text() without a body', async () => {
    const request = new RuntimeRequest('https://a.example/');
    expect(request.body).toBeNull();
    expect(await request.text()).toBe('');
    expect(request.bodyUsed).toBe(false);
  });
});

describe('Response (runtime)', () => {
  it('validates status and statusText like Node', () => {
    for (const init of [
      { status: 199 },
      { status: 200 },
      { status: 599 },
      { status: 600 },
      { status: 204 },
      { status: 200.5 },
      { statusText: 'OK\n' },
      { statusText: 'Fine' },
    ]) {
      const ours = outcome(() => new RuntimeResponse(null, init).status);
      const node = outcome(() => new Response(null, init).status);
      expect(ours, JSON.stringify(init)).toEqual(node);
    }
    expect(outcome(() => new RuntimeResponse('x', { status: 204 }))).toBe('TypeError');
  });

  it('reports ok, type, url and redirected, and defaults the content type like Node', async () => {
    const ours = new RuntimeResponse('hello', { status: 201, headers: { 'x-a': '1' } });
    const node = new Response('hello', { status: 201, headers: { 'x-a': '1' } });
    const view = (r: InstanceType<typeof RuntimeResponse> | Response) => [
      r.ok,
      r.status,
      r.statusText,
      r.type,
      r.url,
      r.redirected,
      [...r.headers],
    ];
    expect(view(ours)).toEqual(view(node));
    expect(await ours.text()).toBe(await node.text());
  });

  it('has Response.json, Response.redirect and Response.error like Node', async () => {
    const ours = RuntimeResponse.json({ a: [1] }, { status: 202, headers: { 'x-b': '2' } });
    const node = Response.json({ a: [1] }, { status: 202, headers: { 'x-b': '2' } });
    expect([...ours.headers]).toEqual([...node.headers]);
    expect(await ours.text()).toBe(await node.text());
    expect(() => RuntimeResponse.json(undefined)).toThrow(TypeError);

    const redirect = RuntimeResponse.redirect('https://a.example/next', 307);
    expect([redirect.status, redirect.headers.get('location')]).toEqual([307, 'https://a.example/next']);
    expect(() => redirect.headers.set('x', '1')).toThrow(TypeError);
    expect(() => RuntimeResponse.redirect('https://a.example/', 200)).toThrow(RangeError);
    expect(() => RuntimeResponse.redirect('/relative')).toThrow(TypeError);

    const error = RuntimeResponse.error();
    expect([error.status, error.type, error.ok]).toEqual([0, 'error', false]);
  });

  it('exposes the body as a one-chunk byte stream that another Response can take over', async () => {
    const upstream = new RuntimeResponse('streamed');
    const proxied = new RuntimeResponse(upstream.body, { status: 203 });
    // As in Node: the stream is only taken (locked, disturbed) once the new Response reads it.
    expect([upstream.bodyUsed, upstream.body!.locked]).toEqual([false, false]);
    expect(await proxied.text()).toBe('streamed');
    expect([upstream.bodyUsed, upstream.body!.locked]).toEqual([true, true]);

    const reader = new RuntimeResponse('abc').body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('abc');
    expect((await reader.read()).done).toBe(true);
  });

  it('clones before reading, and refuses to clone after', async () => {
    const response = new RuntimeResponse('once');
    const clone = response.clone();
    expect(await response.text()).toBe('once');
    expect(await clone.text()).toBe('once');
    expect(() => response.clone()).toThrow(TypeError);
  });

  it('serializes to a SandboxResponse, and refuses errors, used bodies and look-alikes', async () => {
    const response = new RuntimeResponse(new Uint8Array([0, 255]), {
      status: 418,
      statusText: 'Teapot',
      headers: [
        ['Set-Cookie', 'a=1'],
        ['set-cookie', 'b=2'],
      ],
    });
    expect(serializeResponse(response)).toEqual({
      response: {
        status: 418,
        statusText: 'Teapot',
        headers: [
          ['set-cookie', 'a=1'],
          ['set-cookie', 'b=2'],
        ],
        body: new Uint8Array([0, 255]),
      },
      streamed: null,
    });
    expect(serializeResponse(new RuntimeResponse(null))?.response.body).toEqual(new Uint8Array(0));
    const used = new RuntimeResponse('x');
    await used.text();
    expect(serializeResponse(used)).toBeNull();
    expect(serializeResponse(RuntimeResponse.error())).toBeNull();
    expect(serializeResponse(new Response('node'))).toBeNull();
    expect(serializeResponse(Object.create(RuntimeResponse.prototype))).toBeNull();
  });

  it('builds fetched responses with any status, immutable headers and no body for null-body statuses', async () => {
    const fetched = responseFromBridge(
      {
        status: 304,
        statusText: 'Not Modified',
        headers: [
          ['etag', '"1"'],
          ['bad header', 'x'],
        ],
        body: new Uint8Array([1]),
        url: 'https://a.example/',
        redirected: false,
      },
      null,
    );
    expect([fetched.status, fetched.body, [...fetched.headers], fetched.type]).toEqual([
      304,
      null,
      [['etag', '"1"']],
      'basic',
    ]);
    expect(() => fetched.headers.append('x', 'y')).toThrow(TypeError);
  });
});

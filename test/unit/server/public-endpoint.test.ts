import { describe, expect, it } from 'vitest';
import { jsonResponse, sandboxResponse, useFakeApp } from './fake-services.ts';
import { rawRequest } from './raw-request.ts';

const PATH = '/v1/integrations/hello/installations/inst-1';

const t = useFakeApp({ maxPublicBodyBytes: 64 * 1024, maxEnvelopeBytes: 64 * 1024 });

describe('public endpoint: the request becomes a fetch event', () => {
  it('passes method, full URL with path and query, raw headers and the exact body bytes', async () => {
    const body = Buffer.from([0, 1, 2, 13, 10, 255, 254, 0, 0x7f, 0x80]);
    await rawRequest(`${t.app.url}${PATH}/hooks/slack?a=1&b=%20x&a=2`, {
      method: 'POST',
      headers: {
        'X-Custom': 'Value One',
        'X-Multi': ['first', 'second'],
        'Content-Type': 'application/octet-stream',
        Authorization: 'Bearer caller-token',
        Connection: 'keep-alive, X-Drop-Me',
        'X-Drop-Me': 'listed in Connection',
        'Proxy-Authorization': 'Basic xyz',
        'Keep-Alive': 'timeout=5',
        'Content-Length': String(body.length),
      },
      body,
    });
    expect(t.services.dispatchCalls).toHaveLength(1);
    const [call] = t.services.dispatchCalls;
    expect(call.installationId).toBe('inst-1');
    expect(call.event).toMatchObject({ type: 'fetch', installationId: 'inst-1' });
    const request = call.event.request as { method: string; url: string; headers: [string, string][] };
    expect(request.method).toBe('POST');
    expect(request.url).toBe(`http://host.test:8787${PATH}/hooks/slack?a=1&b=%20x&a=2`);
    expect(request.headers).toEqual(
      expect.arrayContaining([
        ['x-custom', 'Value One'],
        ['x-multi', 'first'],
        ['x-multi', 'second'],
        ['content-type', 'application/octet-stream'],
        ['authorization', 'Bearer caller-token'],
        ['content-length', '10'],
      ]),
    );
    const names = request.headers.map(([name]) => name);
    for (const dropped of ['connection', 'keep-alive', 'x-drop-me', 'proxy-authorization', 'transfer-encoding'])
      expect(names).not.toContain(dropped);
    for (const name of names) expect(name).toBe(name.toLowerCase());
    expect(Buffer.from(call.fetchBody!)).toEqual(body);
  });

  it('sends a chunked body exactly, without transfer-encoding in the event', async () => {
    await rawRequest(`${t.app.url}${PATH}`, {
      method: 'PUT',
      body: [Buffer.from('part-1\r\n'), Buffer.from([0, 0, 0]), Buffer.from('end')],
    });
    const [call] = t.services.dispatchCalls;
    expect((call.event.request as { method: string }).method).toBe('PUT');
    expect(Buffer.from(call.fetchBody!)).toEqual(
      Buffer.concat([Buffer.from('part-1\r\n'), Buffer.from([0, 0, 0]), Buffer.from('end')]),
    );
    expect((call.event.request as { headers: [string, string][] }).headers.map(([n]) => n)).not.toContain(
      'transfer-encoding',
    );
  });

  it('passes a null body when the request has none', async () => {
    await fetch(`${t.app.url}${PATH}`);
    expect(t.services.dispatchCalls[0].fetchBody).toBeNull();
    expect((t.services.dispatchCalls[0].event.request as { url: string }).url).toBe(`http://host.test:8787${PATH}`);
  });

  it('reaches the integration with every method', async () => {
    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD']) {
      await rawRequest(`${t.app.url}${PATH}/x`, { method });
    }
    expect(t.services.dispatchCalls.map((c) => (c.event.request as { method: string }).method)).toEqual([
      'GET',
      'POST',
      'PUT',
      'PATCH',
      'DELETE',
      'OPTIONS',
      'HEAD',
    ]);
  });

  it('answers 404 for an unknown installation or one of another integration', async () => {
    for (const path of [
      '/v1/integrations/hello/installations/ghost',
      '/v1/integrations/hello/installations/inst-other',
      '/v1/integrations/other/installations/inst-1/x',
    ]) {
      const res = await fetch(`${t.app.url}${path}`, { method: 'POST', body: 'x' });
      expect(res.status, path).toBe(404);
      expect((await res.json()).error.code).toBe('ERR_INSTALLATION_NOT_FOUND');
    }
    expect(t.services.dispatchCalls).toHaveLength(0);
  });
});

describe('public endpoint: the integration response is returned as is', () => {
  it('keeps status, status text, custom and repeated headers; drops hop-by-hop ones', async () => {
    t.services.respond = () =>
      sandboxResponse(
        201,
        [
          ['Content-Type', 'application/vnd.custom+json'],
          ['X-Custom', 'kept'],
          ['Set-Cookie', 'a=1'],
          ['Set-Cookie', 'b=2'],
          ['Content-Length', '999'],
          ['Connection', 'close'],
          ['Transfer-Encoding', 'chunked'],
        ],
        '{"made":true}',
        'Made It',
      );
    const res = await rawRequest(`${t.app.url}${PATH}`, { method: 'POST' });
    expect(res.status).toBe(201);
    expect(res.statusMessage).toBe('Made It');
    expect(res.headers['content-type']).toBe('application/vnd.custom+json');
    expect(res.headers['x-custom']).toBe('kept');
    // Cookies are renamed into the installation's namespace and scoped to its endpoint.
    expect(res.headers['set-cookie']).toEqual([`ih-inst-1-a=1; Path=${PATH}`, `ih-inst-1-b=2; Path=${PATH}`]);
    expect(res.headers['content-security-policy']).toMatch(/^sandbox allow-scripts/);
    expect(res.headers['content-length']).toBe('13');
    expect(res.headers.connection).not.toBe('close');
    expect(res.body.toString()).toBe('{"made":true}');
  });

  it('returns the seed example 405 text/plain', async () => {
    t.services.respond = () => sandboxResponse(405, [['content-type', 'text/plain']], 'Method not allowed');
    const res = await fetch(`${t.app.url}${PATH}`);
    expect(res.status).toBe(405);
    expect(res.headers.get('content-type')).toBe('text/plain');
    expect(await res.text()).toBe('Method not allowed');
  });

  it('returns JSON', async () => {
    t.services.respond = () => jsonResponse(200, { received: true });
    const res = await fetch(`${t.app.url}${PATH}`, { method: 'POST', body: '{}' });
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(await res.json()).toEqual({ received: true });
  });

  it('adds no content-type when the integration set none, and keeps binary bodies', async () => {
    const bytes = new Uint8Array([0, 255, 13, 10, 0]);
    t.services.respond = () => sandboxResponse(200, [], bytes);
    const res = await rawRequest(`${t.app.url}${PATH}`);
    expect(res.headers['content-type']).toBeUndefined();
    expect(res.body).toEqual(Buffer.from(bytes));
  });

  it('keeps an empty 200 a 200 and a 204 a 204', async () => {
    t.services.respond = () => sandboxResponse(200);
    expect((await rawRequest(`${t.app.url}${PATH}`)).status).toBe(200);
    t.services.respond = () => sandboxResponse(204, [['x-a', 'b']]);
    const res = await rawRequest(`${t.app.url}${PATH}`);
    expect(res.status).toBe(204);
    expect(res.headers['x-a']).toBe('b');
  });

  it('sends no body for HEAD', async () => {
    t.services.respond = () => sandboxResponse(200, [['content-type', 'text/plain']], 'hello');
    const res = await rawRequest(`${t.app.url}${PATH}`, { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.body.length).toBe(0);
  });

  it('answers 502 when the integration returns a header Node cannot send', async () => {
    t.services.respond = () => sandboxResponse(200, [['x-bad', 'line\r\nInjected: yes']], 'x');
    const res = await fetch(`${t.app.url}${PATH}`);
    expect(res.status).toBe(502);
    expect(res.headers.get('injected')).toBeNull();
    expect((await res.json()).error.code).toBe('ERR_SANDBOX_BAD_RESPONSE');
  });

  it('answers 502, not 500, when the answer carries two content types', async () => {
    t.services.respond = () =>
      sandboxResponse(
        200,
        [
          ['content-type', 'text/plain'],
          ['Content-Type', 'text/html'],
        ],
        'x',
      );
    const res = await fetch(`${t.app.url}${PATH}`);
    expect(res.status).toBe(502);
    const body = await res.json();
    expect(body.error.code).toBe('ERR_SANDBOX_BAD_RESPONSE');
    expect(body.error.message).toMatch(/more than one content-type/);
  });
});

describe('public endpoint: body size limit', () => {
  it('answers 413 from content-length alone, without dispatching', async () => {
    const res = await rawRequest(`${t.app.url}${PATH}`, {
      method: 'POST',
      headers: { 'content-length': String(10 * 1024 * 1024) },
    });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body.toString()).error.code).toBe('ERR_PAYLOAD_TOO_LARGE');
    expect(t.services.dispatchCalls).toHaveLength(0);
  });

  it('answers 413 to an oversized chunked body, drains the rest and keeps the connection', async () => {
    const chunk = Buffer.alloc(16 * 1024, 0x61);
    const res = await rawRequest(`${t.app.url}${PATH}`, {
      method: 'POST',
      body: Array.from({ length: 8 }, () => chunk),
    });
    expect(res.status).toBe(413);
    expect(res.headers.connection).toBe('keep-alive');
    expect(t.services.dispatchCalls).toHaveLength(0);
  });

  it('answers 413 through fetch for a body just over the limit', async () => {
    const res = await fetch(`${t.app.url}${PATH}`, { method: 'POST', body: new Uint8Array(64 * 1024 + 1) });
    expect(res.status).toBe(413);
  });

  it('accepts a body exactly at the limit', async () => {
    const res = await fetch(`${t.app.url}${PATH}`, { method: 'POST', body: new Uint8Array(64 * 1024) });
    expect(res.status).toBe(200);
    expect(t.services.dispatchCalls[0].fetchBody?.length).toBe(64 * 1024);
  });
});

describe("paths the public endpoints share with GitBook's API", () => {
  it('sends a request bearing a host API token to the API, never to the integration', async () => {
    for (const token of ['iht_anything', 'ihi_anything']) {
      const response = await fetch(`${t.app.url}${PATH}`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${token}` },
        body: '{}',
      });
      expect(response.status).toBe(404);
      expect((await response.json()).error.message).toBe('fake');
    }
    expect(t.services.dispatchCalls).toHaveLength(0);
  });

  it('leaves every other request to the public endpoint, the admin routes and their 404/405', async () => {
    expect((await fetch(`${t.app.url}${PATH}`, { headers: { authorization: 'Bearer a-provider-token' } })).status).toBe(
      200,
    );
    expect(t.services.dispatchCalls).toHaveLength(1);
    const list = await fetch(`${t.app.url}/v1/integrations/hello/installations`);
    expect([list.status, list.headers.get('allow')]).toEqual([405, 'POST']);
    const tasks = await fetch(`${t.app.url}/v1/integrations/hello/tasks`, { method: 'POST' });
    expect([tasks.status, tasks.headers.get('allow')]).toEqual([405, 'HEAD, GET']);
  });
});

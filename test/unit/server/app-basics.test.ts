import { describe, expect, it } from 'vitest';
import { ADMIN, ADMIN_TOKEN, useFakeApp } from './fake-services.ts';

const t = useFakeApp();

describe('health', () => {
  it('answers anyone with status ok', async () => {
    const res = await fetch(`${t.app.url}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('gives every response a request id and one access-log line without the query', async () => {
    const res = await fetch(`${t.app.url}/health?token=secret`);
    expect(res.headers.get('x-request-id')).toMatch(/^[A-Za-z0-9_-]{6,16}$/);
    const lines = t.services.logs.filter((l) => l.level === 'info').map((l) => l.message);
    expect(lines).toHaveLength(1);
    const id = res.headers.get('x-request-id')!;
    expect(lines[0]).toMatch(/^GET \/health 200 \d+ms req=\S+$/);
    expect(lines[0].endsWith(` req=${id}`)).toBe(true);
  });
});

describe('admin authentication', () => {
  it('refuses a missing token with 401 and WWW-Authenticate', async () => {
    const res = await fetch(`${t.app.url}/v1/integrations`);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect((await res.json()).error.code).toBe('ERR_UNAUTHORIZED');
  });

  it('refuses a malformed Authorization header with 401', async () => {
    for (const authorization of [ADMIN_TOKEN, 'Basic abc', 'Bearer', 'Bearer a b']) {
      const res = await fetch(`${t.app.url}/v1/integrations`, { headers: { authorization } });
      expect(res.status, authorization).toBe(401);
    }
  });

  it('refuses a wrong token with 403', async () => {
    const res = await fetch(`${t.app.url}/v1/integrations`, { headers: { authorization: 'Bearer wrong' } });
    expect(res.status).toBe(403);
    const body = await res.json();
    expect(body.error.code).toBe('ERR_FORBIDDEN');
    expect(JSON.stringify(body)).not.toContain(ADMIN_TOKEN);
  });

  it('accepts the right token', async () => {
    const res = await fetch(`${t.app.url}/v1/integrations`, { headers: ADMIN });
    expect(res.status).toBe(200);
  });
});

describe('unknown routes and methods', () => {
  it('answers an unknown route with 404 ERR_NOT_FOUND JSON', async () => {
    const res = await fetch(`${t.app.url}/nope/nothing`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    expect((await res.json()).error.code).toBe('ERR_NOT_FOUND');
  });

  it('answers a known route with a wrong method with 405 and Allow', async () => {
    const res = await fetch(`${t.app.url}/health`, { method: 'DELETE' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('HEAD, GET');
    expect((await res.json()).error.code).toBe('ERR_METHOD_NOT_ALLOWED');
  });

  it('keeps POST /health a 405 although POST /{version} exists', async () => {
    const res = await fetch(`${t.app.url}/health`, { method: 'POST', headers: ADMIN });
    expect(res.status).toBe(405);
  });

  it('answers OPTIONS on a known route with Allow', async () => {
    const res = await fetch(`${t.app.url}/v1/events`, { method: 'OPTIONS' });
    expect(res.status).toBe(204);
    expect(res.headers.get('allow')).toBe('POST');
  });
});

describe('unexpected failures', () => {
  it('answers 500 ERR_INTERNAL with the request id only, and logs the error', async () => {
    t.services.listIntegrations = () => {
      throw new Error('disk /secret/path exploded');
    };
    const res = await fetch(`${t.app.url}/v1/integrations`, { headers: ADMIN });
    expect(res.status).toBe(500);
    const id = res.headers.get('x-request-id');
    const body = await res.json();
    expect(body).toEqual({ error: { code: 'ERR_INTERNAL', message: `internal error (request ${id})` } });
    const errors = t.services.logs.filter((l) => l.level === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0].message).toContain(`request ${id}`);
    expect(errors[0].message).toContain('disk /secret/path exploded');
  });

  it('passes a 5xx HostError from a service through with its code', async () => {
    const { HostError } = await import('../../../host/common/errors.ts');
    t.services.respond = () => {
      throw new HostError('ERR_SANDBOX_TIMEOUT', 'the integration did not answer in time');
    };
    const res = await fetch(`${t.app.url}/v1/integrations/hello/installations/inst-1`);
    expect(res.status).toBe(504);
    expect((await res.json()).error).toEqual({
      code: 'ERR_SANDBOX_TIMEOUT',
      message: 'the integration did not answer in time',
    });
  });
});

describe('JSON bodies', () => {
  const post = (body: BodyInit, contentType = 'application/json') =>
    fetch(`${t.app.url}/v1/events`, { method: 'POST', headers: { ...ADMIN, 'content-type': contentType }, body });

  it('refuses a non-JSON content type with 415', async () => {
    const res = await post('{}', 'text/plain');
    expect(res.status).toBe(415);
    expect((await res.json()).error.code).toBe('ERR_UNSUPPORTED_MEDIA_TYPE');
  });

  it('refuses invalid JSON with 400 and the parser reason', async () => {
    const res = await post('{"type": ');
    expect(res.status).toBe(400);
    const { error } = await res.json();
    expect(error.code).toBe('ERR_BAD_REQUEST');
    expect(error.message).toMatch(/^request body is not valid JSON: .+/);
  });

  it('refuses a body over 1 MiB with 413', async () => {
    const res = await post(JSON.stringify({ type: 'x', pad: 'a'.repeat(1_100_000) }));
    expect(res.status).toBe(413);
    expect((await res.json()).error.code).toBe('ERR_PAYLOAD_TOO_LARGE');
  });

  it('refuses a JSON value that is not an object with 400', async () => {
    const res = await post('[1,2]');
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe('ERR_VALIDATION');
  });

  it('publishes an event and answers 202 with the service result', async () => {
    const res = await post(
      JSON.stringify({ type: 'space_content_updated', spaceId: 's1' }),
      'application/json; charset=utf-8',
    );
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({
      eventId: 'evt-1',
      dispatched: [{ installationId: 'inst-1', integration: 'hello', status: 200 }],
    });
    expect(t.services.publishCalls).toEqual([{ type: 'space_content_updated', spaceId: 's1' }]);
  });
});

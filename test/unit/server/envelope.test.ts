import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ADMIN, jsonResponse, sandboxResponse, useFakeApp } from './fake-services.ts';
import { BOUNDARY, multipartBody, multipartHeaders, type RawPart } from './multipart.ts';
import { rawRequest } from './raw-request.ts';

const LIMIT = 64 * 1024;
const EVENT = {
  type: 'fetch',
  installationId: 'inst-1',
  request: { method: 'POST', url: 'https://x.test/hook', headers: [] },
};
// Every byte value, plus the sequences multipart framing cares about.
const BINARY = Buffer.concat([
  Buffer.from('\r\n--not-the-boundary\r\n\r\n'),
  Buffer.from(Array.from({ length: 256 }, (_, i) => i)),
  Buffer.from([0, 0, 13, 10]),
]);

const t = useFakeApp({ maxPublicBodyBytes: LIMIT, maxEnvelopeBytes: LIMIT });

function postParts(parts: RawPart[], { path = '/v1', boundary = BOUNDARY, close = true } = {}): Promise<Response> {
  return fetch(`${t.app.url}${path}`, {
    method: 'POST',
    headers: { ...ADMIN, ...multipartHeaders(boundary) },
    body: new Uint8Array(multipartBody(parts, boundary, { close })),
  });
}

async function multipartError(res: Response): Promise<string> {
  const body = await res.json();
  expect(res.status, JSON.stringify(body)).toBe(400);
  expect(body.error.code).toBe('ERR_MULTIPART_INVALID');
  return body.error.message as string;
}

const event = (value: unknown = EVENT): RawPart => ({
  name: 'event',
  contentType: 'application/json',
  body: JSON.stringify(value),
});
const environment = (value: unknown = { secrets: { TOKEN: 'forged' } }): RawPart => ({
  name: 'environment',
  body: JSON.stringify(value),
});

describe('POST /v1 with a valid envelope', () => {
  it('dispatches event.installationId with the exact fetch-body bytes (FormData, file part)', async () => {
    const marker = `marker-${randomUUID()}`;
    const fetchBody = Buffer.concat([BINARY, Buffer.from(marker)]);
    t.services.respond = () =>
      sandboxResponse(
        200,
        [
          ['content-type', 'application/json'],
          ['x-from', 'integration'],
        ],
        '{"received":true}',
      );
    const form = new FormData();
    form.append('event', JSON.stringify(EVENT));
    form.append(
      'environment',
      JSON.stringify({ secrets: { TOKEN: 'forged-secret' }, apiTokens: { installation: 'forged' } }),
    );
    form.append('fetch-body', new Blob([fetchBody]), 'body.bin');
    // In memory only: the host (in this process) gets a temporary directory of its own for the
    // request, and nothing may appear in it (formidable writes file parts to os.tmpdir()).
    const ownTmp = mkdtempSync(join(tmpdir(), 'envelope-upload-'));
    const previousTmp = process.env.TMPDIR;
    process.env.TMPDIR = ownTmp;
    let res: Response;
    let written: string[];
    try {
      expect(tmpdir()).toBe(ownTmp);
      res = await fetch(`${t.app.url}/v1`, { method: 'POST', headers: ADMIN, body: form });
      await res.clone().arrayBuffer();
      written = readdirSync(ownTmp, { recursive: true }).map(String);
    } finally {
      if (previousTmp === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = previousTmp;
      rmSync(ownTmp, { recursive: true, force: true });
    }
    expect(written, 'temporary files written while parsing the envelope').toEqual([]);

    expect(res.status).toBe(200);
    expect(res.headers.get('x-from')).toBe('integration');
    expect(await res.json()).toEqual({ received: true });
    expect(t.services.dispatchCalls).toHaveLength(1);
    const [call] = t.services.dispatchCalls;
    expect(call.installationId).toBe('inst-1');
    expect(call.event).toEqual(EVENT);
    expect(Buffer.from(call.fetchBody!)).toEqual(fetchBody);
    // The client's environment never travels: the host builds its own.
    expect(JSON.stringify(call)).not.toContain('forged');
  });

  it('keeps fetch-body bytes exact when sent as a plain field', async () => {
    await postParts([event(), environment(), { name: 'fetch-body', body: BINARY }]);
    expect(Buffer.from(t.services.dispatchCalls[0].fetchBody!)).toEqual(BINARY);
  });

  it('accepts an envelope without environment and fetch-body (null body)', async () => {
    t.services.respond = () => jsonResponse(202, { queued: true });
    const res = await postParts([event()]);
    expect(res.status).toBe(202);
    expect(t.services.dispatchCalls[0].fetchBody).toBeNull();
  });
});

describe('POST /v1 with a bad envelope', () => {
  it('refuses a missing event part', async () => {
    expect(await multipartError(await postParts([environment(), { name: 'fetch-body', body: 'x' }]))).toMatch(
      /"event" is missing/,
    );
  });

  it('refuses an unknown part name, naming it', async () => {
    expect(await multipartError(await postParts([event(), { name: 'extra', body: 'x' }]))).toMatch(
      /unknown part "extra"/,
    );
  });

  it('refuses a duplicate part, naming it', async () => {
    expect(await multipartError(await postParts([event(), event()]))).toMatch(/part "event" appears more than once/);
  });

  it('refuses a part without a name', async () => {
    expect(await multipartError(await postParts([event(), { body: 'x' }]))).toMatch(/no name/);
  });

  it('refuses invalid JSON in event or environment, naming the part', async () => {
    expect(await multipartError(await postParts([{ name: 'event', body: '{"type":' }]))).toMatch(
      /part "event" is not valid JSON/,
    );
    expect(await multipartError(await postParts([event(), { name: 'environment', body: 'nope' }]))).toMatch(
      /part "environment" is not valid JSON/,
    );
    expect(await multipartError(await postParts([event(), environment([1, 2])]))).toMatch(
      /part "environment" must be a JSON object/,
    );
  });

  it('refuses an event without a string installationId', async () => {
    expect(await multipartError(await postParts([event({ type: 'fetch' })]))).toMatch(/installationId/);
    expect(t.services.dispatchCalls).toHaveLength(0);
  });

  it('answers 404 for an unknown installation', async () => {
    const res = await postParts([event({ ...EVENT, installationId: 'ghost' })]);
    expect(res.status).toBe(404);
    expect((await res.json()).error.code).toBe('ERR_INSTALLATION_NOT_FOUND');
  });

  it('refuses a body that is not multipart with 415', async () => {
    const res = await fetch(`${t.app.url}/v1`, {
      method: 'POST',
      headers: { ...ADMIN, 'content-type': 'application/json' },
      body: JSON.stringify({ event: EVENT }),
    });
    expect(res.status).toBe(415);
    expect((await res.json()).error.code).toBe('ERR_UNSUPPORTED_MEDIA_TYPE');
  });

  it('refuses a truncated body', async () => {
    const full = multipartBody([event(), { name: 'fetch-body', body: BINARY }]);
    const res = await fetch(`${t.app.url}/v1`, {
      method: 'POST',
      headers: { ...ADMIN, ...multipartHeaders() },
      body: new Uint8Array(full.subarray(0, full.length - 200)),
    });
    expect(await multipartError(res)).toMatch(/not well-formed multipart \(in part "fetch-body"\)/);
    expect(t.services.dispatchCalls).toHaveLength(0);
  });

  it('refuses a body without its closing boundary', async () => {
    expect(await multipartError(await postParts([event()], { close: false }))).toMatch(/not well-formed/);
  });

  it('refuses a missing or mismatched boundary', async () => {
    const body = multipartBody([event()]);
    const noBoundary = await fetch(`${t.app.url}/v1`, {
      method: 'POST',
      headers: { ...ADMIN, 'content-type': 'multipart/form-data' },
      body: new Uint8Array(body),
    });
    expect(await multipartError(noBoundary)).toMatch(/boundary/);
    const wrong = await fetch(`${t.app.url}/v1`, {
      method: 'POST',
      headers: { ...ADMIN, ...multipartHeaders('other-boundary') },
      body: new Uint8Array(body),
    });
    expect(await multipartError(wrong)).toMatch(/not well-formed/);
  });

  it('answers 413 for an oversized envelope, by content-length or by bytes read', async () => {
    const big = await postParts([event(), { name: 'fetch-body', body: Buffer.alloc(LIMIT + 1) }]);
    expect(big.status).toBe(413);
    expect((await big.json()).error.code).toBe('ERR_PAYLOAD_TOO_LARGE');
    const body = multipartBody([event(), { name: 'fetch-body', body: Buffer.alloc(LIMIT) }]);
    const chunked = await rawRequest(`${t.app.url}/v1`, {
      method: 'POST',
      headers: { ...ADMIN, ...multipartHeaders() },
      body: [body.subarray(0, 1000), body.subarray(1000)],
    });
    expect(chunked.status).toBe(413);
    expect(t.services.dispatchCalls).toHaveLength(0);
  });

  it('refuses another version with ERR_UNSUPPORTED_VERSION', async () => {
    const res = await postParts([event()], { path: '/v2' });
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe('ERR_UNSUPPORTED_VERSION');
  });

  it('requires the admin token', async () => {
    const res = await fetch(`${t.app.url}/v1`, {
      method: 'POST',
      headers: multipartHeaders(),
      body: new Uint8Array(multipartBody([event()])),
    });
    expect(res.status).toBe(401);
    expect(t.services.dispatchCalls).toHaveLength(0);
  });
});

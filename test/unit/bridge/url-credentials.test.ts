// A URL carrying credentials is refused wherever the host checks a destination (guest fetch, every
// redirect hop, webhook URLs), whichever part carries them: a user name only (`https://token@host/`),
// a password only (`https://:pw@host/`) or both. A refused destination is never connected to.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createEgressPolicy } from '../../../host/bridge/egress-policy.ts';
import { performFetch } from '../../../host/bridge/fetch.ts';
import { checkWebhookUrl } from '../../../host/webhooks/config.ts';
import type { BridgeRequest } from '../../../sandbox-api/runtime/contract.ts';

const allowed = { allow: ['127.0.0.1', 'hooks.example.com'] };
const WITH_CREDENTIALS = [
  ['a user name only', 'token@'],
  ['a password only', ':secret@'],
  ['a user name and a password', 'user:secret@'],
  ['an empty password after a user name', 'token:@'],
] as const;

let server: http.Server;
let port = 0;
const requests: string[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    requests.push(req.url ?? '');
    if (req.url?.startsWith('/to/'))
      return res
        .writeHead(302, { location: `http://${decodeURIComponent(req.url.slice(4))}127.0.0.1:${port}/landed` })
        .end();
    res.end('ok');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const get = (url: string): BridgeRequest => ({ url, method: 'GET', headers: [], body: null, redirect: 'follow' });
const fetchOptions = { policy: createEgressPolicy(allowed), timeoutMs: 5_000, maxResponseBytes: 1024, maxRedirects: 5 };

describe('the egress policy', () => {
  it.each(WITH_CREDENTIALS)('refuses a URL with %s', (_what, userinfo) => {
    expect(createEgressPolicy(allowed).checkUrl(new URL(`https://${userinfo}hooks.example.com/`))).toBe(
      'credentials in URLs are not allowed',
    );
  });

  it('accepts the same URL without credentials (and an "@" in its path)', () => {
    expect(createEgressPolicy(allowed).checkUrl(new URL('https://hooks.example.com/a@b'))).toBeNull();
  });
});

describe('guest fetch', () => {
  it.each(WITH_CREDENTIALS)('refuses a URL with %s without connecting', async (_what, userinfo) => {
    const before = requests.length;
    const refusals: string[] = [];
    const result = await performFetch(get(`http://${userinfo}127.0.0.1:${port}/direct`), {
      ...fetchOptions,
      onRefusal: (_url, reason) => refusals.push(reason),
    });
    expect(result).toEqual({
      ok: false,
      code: 'TypeError',
      message: expect.stringContaining('credentials in URLs are not allowed'),
    });
    expect(refusals).toHaveLength(1);
    expect(requests.length).toBe(before);
  });

  it.each(WITH_CREDENTIALS)('refuses a redirect to a URL with %s without following it', async (_what, userinfo) => {
    const before = requests.length;
    const result = await performFetch(get(`http://127.0.0.1:${port}/to/${encodeURIComponent(userinfo)}`), fetchOptions);
    expect(result).toEqual({
      ok: false,
      code: 'TypeError',
      message: expect.stringContaining('credentials in URLs are not allowed'),
    });
    // The redirecting request reached the server; the hop with credentials did not.
    expect(requests.slice(before)).toEqual([`/to/${encodeURIComponent(userinfo)}`]);
  });

  it('follows the same redirect without credentials', async () => {
    const result = await performFetch(get(`http://127.0.0.1:${port}/to/`), fetchOptions);
    expect(result.ok && result.value.status).toBe(200);
  });
});

describe('webhook URLs', () => {
  it.each(WITH_CREDENTIALS)('are refused with %s', (_what, userinfo) => {
    expect(checkWebhookUrl(`https://${userinfo}hooks.example.com/in`, allowed)).toBe(
      'credentials in URLs are not allowed',
    );
    expect(checkWebhookUrl(`http://${userinfo}127.0.0.1:9000/in`, allowed)).toBe('credentials in URLs are not allowed');
  });
});

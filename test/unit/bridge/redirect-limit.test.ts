// The redirect limit of guest fetch is exact: the documented number of redirects (docs/limits.md)
// is followed to its answer, one more is refused without its request being sent. Requests are
// counted at a loopback server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createEgressPolicy } from '../../../host/bridge/egress-policy.ts';
import { MAX_FETCH_REDIRECTS, performFetch } from '../../../host/bridge/fetch.ts';
import type { BridgeRequest } from '../../../sandbox-api/runtime/contract.ts';

const STATUSES = [301, 302, 303, 307, 308];
let server: http.Server;
let base = '';
/** Request paths by chain: `/chain/<id>/<redirects left>`. */
const seen = new Map<string, string[]>();

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const [, , id, left] = (req.url ?? '').split('/');
    seen.set(id, [...(seen.get(id) ?? []), req.url ?? '']);
    const remaining = Number(left);
    if (remaining > 0)
      return res.writeHead(STATUSES[remaining % STATUSES.length], { location: `/chain/${id}/${remaining - 1}` }).end();
    res.end('arrived');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function fetchChain(id: string, redirects: number, maxRedirects = MAX_FETCH_REDIRECTS) {
  const request: BridgeRequest = {
    url: `${base}/chain/${id}/${redirects}`,
    method: 'GET',
    headers: [],
    body: null,
    redirect: 'follow',
  };
  const result = await performFetch(request, {
    policy: createEgressPolicy({ allow: ['127.0.0.1'] }),
    timeoutMs: 5_000,
    maxResponseBytes: 1024,
    maxRedirects,
  });
  return { result, requests: seen.get(id) ?? [] };
}

describe('the redirect limit of guest fetch', () => {
  it('is the one docs/limits.md gives', () => {
    const limits = readFileSync(new URL('../../../docs/limits.md', import.meta.url), 'utf8');
    const row = limits.split('\n').find((line) => line.includes('one outbound `fetch`'));
    expect(row).toContain(`/ ${MAX_FETCH_REDIRECTS}, each hop checked again`);
  });

  it(`follows exactly ${MAX_FETCH_REDIRECTS} redirects to the answer`, async () => {
    const { result, requests } = await fetchChain('at-limit', MAX_FETCH_REDIRECTS);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(new TextDecoder().decode(result.value.body)).toBe('arrived');
    expect(result.value.redirected).toBe(true);
    expect(requests).toHaveLength(MAX_FETCH_REDIRECTS + 1);
  });

  it(`refuses the ${MAX_FETCH_REDIRECTS + 1}th redirect without sending its request`, async () => {
    const { result, requests } = await fetchChain('over-limit', MAX_FETCH_REDIRECTS + 1);
    expect(result).toEqual({ ok: false, code: 'TypeError', message: `more than ${MAX_FETCH_REDIRECTS} redirects` });
    expect(requests).toHaveLength(MAX_FETCH_REDIRECTS + 1);
    expect(requests.at(-1)).toBe('/chain/over-limit/1');
  });

  it.each([0, 1, 2])('holds for a limit of %i too', async (limit) => {
    expect((await fetchChain(`limit-${limit}-at`, limit, limit)).result.ok).toBe(true);
    const over = await fetchChain(`limit-${limit}-over`, limit + 1, limit);
    expect(over.result).toMatchObject({ ok: false, message: `more than ${limit} redirects` });
    expect(over.requests).toHaveLength(limit + 1);
  });
});

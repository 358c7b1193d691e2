// Fuzzes `POST /{version}` through the real host: malformed, mutated and hostile multipart envelopes
// and unsupported versions get a 4xx ERR_ code or are dispatched; never a host 5xx, never a hang.
// Seed and replay: see fuzz-assert.ts.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ADMIN_TOKEN, installationOf, startTestHost, type TestHost } from '../helpers/host.ts';
import { envelopePlan, renderEnvelope } from './arbitraries/multipart.ts';
import { expectHostVerdict, isHostError, send, type Answer } from './assertions.ts';
import { fuzz } from './fuzz-assert.ts';

let host: TestHost;
let installationIds: string[];
const auth = { authorization: `Bearer ${ADMIN_TOKEN}` };

beforeAll(async () => {
  host = await startTestHost({ workers: 1 });
  installationIds = [installationOf(host, 'hello'), installationOf(host, 'counter')];
});
afterAll(() => host?.close());

/**
 * Never a 5xx. A 4xx is the host's (an ERR_ code) or the integration's own answer passed through:
 * the runtime's `{ "error": "<text>" }` (406 no handler, ExposableError) or hello's text 405.
 */
function expectEnvelopeVerdict(answer: Answer): void {
  if (answer.status < 400 || isHostError(answer)) return expectHostVerdict(answer);
  const where = `status ${answer.status}: ${answer.text.slice(0, 300)}`;
  expect(answer.status, where).toBeLessThan(500);
  expect(typeof answer.json?.error === 'string' || answer.text === 'Method not allowed', where).toBe(true);
}

describe('POST /v1 with fuzzed multipart envelopes', () => {
  it("answers every envelope with a 4xx ERR_ code or the integration's answer, never a host 5xx", async () => {
    await fuzz(
      fc.asyncProperty(envelopePlan(installationIds), async (plan) => {
        const { headers, body } = renderEnvelope(plan);
        expectEnvelopeVerdict(await send(`${host.url}/v1`, { method: 'POST', headers: { ...auth, ...headers }, body }));
      }),
      { numRuns: 300 },
    );
  });

  // Found by the property above: a `fetch` event whose request no Request can carry reached the
  // integration and came back as its 500.
  it('refuses a fetch event whose request no Request can carry with 400 ERR_MULTIPART_INVALID', async () => {
    const request = fc.oneof(
      fc.constantFrom(undefined, null, 'GET /', []),
      fc
        .record({
          method: fc.constantFrom('GET', '', 'TRACE', 'G T', 7),
          url: fc.constantFrom('https://x.test/', 'not a url', 'https://user:pw@x.test/', 5),
          headers: fc.constantFrom([], [['bad name', 'x']], [['a', '\u0100']], [['a']], 3),
        })
        .filter(
          (r) =>
            !(r.method === 'GET' && r.url === 'https://x.test/' && Array.isArray(r.headers) && r.headers.length === 0),
        ),
    );
    await fuzz(
      fc.asyncProperty(request, async (bad) => {
        const event = JSON.stringify({
          type: 'fetch',
          installationId: installationIds[0],
          ...(bad === undefined ? {} : { request: bad }),
        });
        const body = Buffer.from(`--x\r\nContent-Disposition: form-data; name="event"\r\n\r\n${event}\r\n--x--\r\n`);
        const answer = await send(`${host.url}/v1`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'multipart/form-data; boundary=x' },
          body,
        });
        expectHostVerdict(answer);
        expect(answer.json?.error?.code, answer.text).toBe('ERR_MULTIPART_INVALID');
      }),
      { numRuns: 40 },
    );
  });

  it('refuses other versions and paths with a 4xx ERR_ code', async () => {
    const version = fc.oneof(
      fc.stringMatching(/^v[0-9]{1,20}\/?$/),
      fc.constantFrom('v0', 'v01', 'V1', 'v1/', 'v2', 'vX', 'v', 'v1.0', 'v-1', '%76%31', 'v1//', 'v1%2F'),
    );
    await fuzz(
      fc.asyncProperty(version, fc.boolean(), async (path, multipart) => {
        const headers: Record<string, string> = multipart
          ? { ...auth, 'content-type': 'multipart/form-data; boundary=x' }
          : auth;
        const answer = await send(`${host.url}/${path}`, { method: 'POST', headers, body: '--x--\r\n' });
        expectHostVerdict(answer);
        expect(answer.status).toBeGreaterThanOrEqual(400);
      }),
      { numRuns: 100 },
    );
  });

  it('refuses envelopes over the 1 MB limit with 413, declared or chunked', async () => {
    await fuzz(
      fc.asyncProperty(fc.integer({ min: 1_048_577, max: 1_400_000 }), fc.boolean(), async (size, chunked) => {
        const head = Buffer.from('--x\r\nContent-Disposition: form-data; name="fetch-body"\r\n\r\n');
        const body = Buffer.concat([head, Buffer.alloc(size - head.length, 0x61)]);
        const framing: Record<string, string> = chunked
          ? { 'transfer-encoding': 'chunked' }
          : { 'content-length': String(body.length) };
        const answer = await send(`${host.url}/v1`, {
          method: 'POST',
          headers: { ...auth, ...framing, 'content-type': 'multipart/form-data; boundary=x' },
          body,
        });
        expectHostVerdict(answer);
        expect(answer.json.error.code).toBe('ERR_PAYLOAD_TOO_LARGE');
      }),
      { numRuns: 10 },
    );
  });
});

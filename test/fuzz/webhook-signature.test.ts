// Fuzzes webhook signatures: verifySignature against a node:crypto oracle for random headers,
// bodies and secrets, and signPayload/signatureHeader round trips. Seed and replay: fuzz-assert.ts.

import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { verifySignature } from '../../sandbox-api/webhook-receiver.ts';
import { signatureHeader, signPayload } from '../../host/webhooks/sign.ts';
import {
  anyHeader,
  body,
  headerPlan,
  hmacHex,
  NOW_MS,
  renderHeader,
  secret,
  timestamp,
} from './arbitraries/signature.ts';

const NOW_S = Math.floor(NOW_MS / 1000);
import { fuzz } from './fuzz-assert.ts';

const REASONS = [
  'missing_secret',
  'missing_header',
  'malformed_header',
  'missing_timestamp',
  'missing_signature',
  'timestamp_out_of_tolerance',
  'signature_mismatch',
];

/**
 * Independent reading of `t=<unix seconds>,v1=<hex>[,v1=<hex>…]`: exactly one decimal `t`, within
 * the tolerance of now, and one `v1` equal (hex, any case) to HMAC-SHA256(secret, "<t>.<body>").
 */
function oracleAccepts(payload: string | Uint8Array, header: unknown, key: string, toleranceSeconds: number): boolean {
  if (typeof header !== 'string' || key === '') return false;
  const items = header
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  if (items.some((part) => part.indexOf('=') <= 0)) return false;
  const pairs = items.map((part) => [
    part.slice(0, part.indexOf('=')).trim(),
    part.slice(part.indexOf('=') + 1).trim(),
  ]);
  const times = pairs.filter(([name]) => name === 't').map(([, value]) => value);
  if (times.length !== 1 || !/^[0-9]{1,15}$/.test(times[0])) return false;
  const t = Number(times[0]);
  if (Math.abs(Math.floor(NOW_MS / 1000) - t) > toleranceSeconds) return false;
  const expected = hmacHex(key, t, payload);
  return pairs.some(([name, value]) => name === 'v1' && value.toLowerCase() === expected);
}

describe('verifySignature under fuzzing', () => {
  it('never throws and accepts exactly when one v1 is the HMAC of t.body within tolerance', async () => {
    await fuzz(
      fc.asyncProperty(
        body,
        secret,
        headerPlan,
        fc.integer({ min: 0, max: 600 }),
        async (payload, key, plan, toleranceSeconds) => {
          const header = renderHeader(plan, key, payload);
          const result = await verifySignature(payload, header, key, { now: NOW_MS, toleranceSeconds });
          const accepted = oracleAccepts(payload, header, key, toleranceSeconds);
          expect(result.ok).toBe(accepted);
          if (!result.ok) expect(REASONS).toContain(result.reason);
        },
      ),
      // Found by this property: an empty secret made Web Crypto throw instead of refusing.
      {
        numRuns: 300,
        examples: [
          [
            'body',
            '',
            {
              items: [
                { kind: 't', t: NOW_S, spelling: 'plain' },
                { kind: 'v1', t: NOW_S, sameT: true, withSecret: 'right', upper: false },
              ],
              separator: ',',
            },
            300,
          ],
        ],
      },
    );
  });

  it('never throws on arbitrary header strings and refuses them unless they verify', async () => {
    await fuzz(
      fc.asyncProperty(body, secret, anyHeader, async (payload, key, header) => {
        const result = await verifySignature(payload, header, key, { now: NOW_MS });
        expect(result.ok).toBe(oracleAccepts(payload, header, key, 300));
      }),
      { numRuns: 200 },
    );
  });

  it('refuses every header when the secret is empty', async () => {
    await fuzz(
      fc.asyncProperty(body, headerPlan, async (payload, plan) => {
        const header = renderHeader(plan, '', payload);
        expect(await verifySignature(payload, header, '', { now: NOW_MS })).toEqual({
          ok: false,
          reason: 'missing_secret',
        });
      }),
      { numRuns: 50 },
    );
  });
});

describe('signPayload and signatureHeader round trips', () => {
  const nonEmptySecret = fc.string({ minLength: 1, maxLength: 80 });
  // HMAC pads keys with zero bytes, so 'k' and 'k\0' are the same key: compare keys without them.
  const sameKey = (a: string, b: string): boolean => a.replace(/\0+$/, '') === b.replace(/\0+$/, '');

  it('verifies what signPayload signed, within tolerance, and only with the same secret', async () => {
    await fuzz(
      fc.asyncProperty(
        body,
        nonEmptySecret,
        nonEmptySecret,
        timestamp,
        fc.integer({ min: -300_999, max: 300_999 }),
        async (payload, key, other, t, skewMs) => {
          const header = signPayload(key, payload, t);
          const now = t * 1000 + skewMs;
          const verdict = await verifySignature(payload, header, key, { now });
          const withinTolerance = Math.abs(Math.floor(now / 1000) - t) <= 300;
          expect(verdict).toEqual(
            withinTolerance ? { ok: true, timestamp: t } : { ok: false, reason: 'timestamp_out_of_tolerance' },
          );
          if (withinTolerance && !sameKey(key, other)) {
            expect(await verifySignature(payload, header, other, { now })).toEqual({
              ok: false,
              reason: 'signature_mismatch',
            });
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('verifies a signatureHeader of several secrets with each of them', async () => {
    await fuzz(
      fc.asyncProperty(
        body,
        fc.array(nonEmptySecret, { minLength: 1, maxLength: 3 }),
        timestamp,
        async (payload, keys, t) => {
          const header = signatureHeader(keys, payload, t);
          for (const key of keys)
            expect(await verifySignature(payload, header, key, { now: t * 1000 })).toEqual({ ok: true, timestamp: t });
        },
      ),
      { numRuns: 150 },
    );
  });
});

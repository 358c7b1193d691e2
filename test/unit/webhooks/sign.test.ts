// Signature vectors for X-Platform-Signature, checked against node:crypto computed here.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { computeSignature, signatureHeader, signPayload } from '../../../host/webhooks/sign.ts';

const SECRET = 'test-secret';
const T = 1_700_000_000;
const BODY = '{"eventId":"evt_1","type":"space_content_updated"}';
const independentHex = (secret: string, t: number, body: string | Buffer): string =>
  createHmac('sha256', Buffer.from(secret, 'utf8'))
    .update(Buffer.concat([Buffer.from(`${t}.`), Buffer.from(body)]))
    .digest('hex');

describe('signPayload', () => {
  it('signs "<t>.<body>" with HMAC-SHA256 as lowercase hex', () => {
    expect(signPayload(SECRET, BODY, T)).toBe(`t=${T},v1=${independentHex(SECRET, T, BODY)}`);
  });

  it('matches the documented vector', () => {
    expect(signPayload(SECRET, BODY, T)).toBe(
      't=1700000000,v1=5cc9a5234b607fab1b29729f4fc626dc14c93bf690c71e877ce692804249ec8e',
    );
  });

  it('signs bytes and the equal UTF-8 string identically', () => {
    const body = '{"comment":"très bien ✓"}';
    expect(signPayload(SECRET, new TextEncoder().encode(body), T)).toBe(signPayload(SECRET, body, T));
    expect(computeSignature(SECRET, body, T)).toBe(independentHex(SECRET, T, body));
  });

  it('changes with the timestamp, the body and the secret', () => {
    const base = computeSignature(SECRET, BODY, T);
    expect(computeSignature(SECRET, BODY, T + 1)).not.toBe(base);
    expect(computeSignature(SECRET, `${BODY} `, T)).not.toBe(base);
    expect(computeSignature(`${SECRET}x`, BODY, T)).not.toBe(base);
  });

  it('rejects a timestamp that is not whole seconds', () => {
    expect(() => signPayload(SECRET, BODY, 1.5)).toThrow(TypeError);
    expect(() => signPayload(SECRET, BODY, -1)).toThrow(TypeError);
  });
});

describe('signatureHeader', () => {
  it('carries one t and one v1 per secret during a rotation, current first', () => {
    const header = signatureHeader(['new-secret', 'old-secret'], BODY, T);
    expect(header).toBe(
      `t=${T},v1=${independentHex('new-secret', T, BODY)},v1=${independentHex('old-secret', T, BODY)}`,
    );
    expect(header.match(/t=/g)).toHaveLength(1);
  });

  it('is the single-secret signature when only one secret is active', () => {
    expect(signatureHeader([SECRET], BODY, T)).toBe(signPayload(SECRET, BODY, T));
  });

  it('refuses to sign without a secret', () => {
    expect(() => signatureHeader([], BODY, T)).toThrow(/at least one/);
  });
});

// The receiver helper: verifySignature accepts what signPayload produces and rejects every
// malformed, mismatched or stale header; createDedupe remembers eventIds for two minutes.
import { createHmac } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { createDedupe, verifySignature } from '../../../sandbox-api/webhook-receiver.ts';
import { signatureHeader, signPayload } from '../../../host/webhooks/sign.ts';

const SECRET = 'receiver-secret';
const BODY = '{"eventId":"evt_1","type":"site_view"}';
const T = 1_700_000_000;
const NOW = T * 1000;
const hex = (secret: string, t: number, body: string): string =>
  createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');

describe('verifySignature', () => {
  it('accepts a header from signPayload and returns its timestamp', async () => {
    expect(await verifySignature(BODY, signPayload(SECRET, BODY, T), SECRET, { now: NOW })).toEqual({
      ok: true,
      timestamp: T,
    });
  });

  it('accepts a header computed independently with node:crypto, and bytes as the body', async () => {
    const header = `t=${T},v1=${hex(SECRET, T, BODY)}`;
    expect(await verifySignature(new TextEncoder().encode(BODY), header, SECRET, { now: NOW })).toMatchObject({
      ok: true,
    });
  });

  it('accepts either secret of a rotation (two v1 entries)', async () => {
    const header = signatureHeader(['new-secret', 'old-secret'], BODY, T);
    expect(await verifySignature(BODY, header, 'new-secret', { now: NOW })).toMatchObject({ ok: true });
    expect(await verifySignature(BODY, header, 'old-secret', { now: NOW })).toMatchObject({ ok: true });
    expect(await verifySignature(BODY, header, 'other-secret', { now: NOW })).toEqual({
      ok: false,
      reason: 'signature_mismatch',
    });
  });

  it('imports the key of a secret once for many deliveries, and a new secret verifies with its own key', async () => {
    const importKey = vi.spyOn(crypto.subtle, 'importKey');
    try {
      const header = (secret: string) => signPayload(secret, BODY, T);
      for (let i = 0; i < 5; i++)
        expect(await verifySignature(BODY, header('cached-secret'), 'cached-secret', { now: NOW })).toMatchObject({
          ok: true,
        });
      expect(importKey).toHaveBeenCalledTimes(1);
      // Alternating secrets: each answer is checked with the right key, never the remembered one.
      expect(await verifySignature(BODY, header('cached-secret'), 'second-secret', { now: NOW })).toEqual({
        ok: false,
        reason: 'signature_mismatch',
      });
      expect(await verifySignature(BODY, header('second-secret'), 'second-secret', { now: NOW })).toMatchObject({
        ok: true,
      });
      expect(await verifySignature(BODY, header('second-secret'), 'cached-secret', { now: NOW })).toEqual({
        ok: false,
        reason: 'signature_mismatch',
      });
      expect(await verifySignature(BODY, header('cached-secret'), 'cached-secret', { now: NOW })).toMatchObject({
        ok: true,
      });
    } finally {
      importKey.mockRestore();
    }
  });

  it('tolerates spaces and unknown schemes in the header', async () => {
    const header = ` t=${T} , v0=abc, v1=${hex(SECRET, T, BODY)} `;
    expect(await verifySignature(BODY, header, SECRET, { now: NOW })).toMatchObject({ ok: true });
  });

  it.each([
    [undefined, 'missing_header'],
    [null, 'missing_header'],
    ['', 'missing_header'],
    [`v1=${'a'.repeat(64)}`, 'missing_timestamp'],
    [`t=${T}`, 'missing_signature'],
    [`t=${T},v0=${'a'.repeat(64)}`, 'missing_signature'],
    ['garbage', 'malformed_header'],
    [`t=${T},t=${T},v1=${'a'.repeat(64)}`, 'malformed_header'],
    [`t=abc,v1=${'a'.repeat(64)}`, 'malformed_header'],
    [`t=${T},v1=${'a'.repeat(64)}`, 'signature_mismatch'],
    [`t=${T},v1=not-hex`, 'signature_mismatch'],
  ])('rejects header %j as %s', async (header, reason) => {
    expect(await verifySignature(BODY, header, SECRET, { now: NOW })).toEqual({ ok: false, reason });
  });

  it('rejects a signature over a different body (the raw body must be used)', async () => {
    const header = signPayload(SECRET, BODY, T);
    const reserialized = JSON.stringify(JSON.parse(BODY), null, 2);
    expect(await verifySignature(reserialized, header, SECRET, { now: NOW })).toEqual({
      ok: false,
      reason: 'signature_mismatch',
    });
  });

  it('rejects a timestamp older than the tolerance', async () => {
    const header = signPayload(SECRET, BODY, T - 301);
    expect(await verifySignature(BODY, header, SECRET, { now: NOW })).toEqual({
      ok: false,
      reason: 'timestamp_out_of_tolerance',
    });
    expect(await verifySignature(BODY, signPayload(SECRET, BODY, T - 300), SECRET, { now: NOW + 999 })).toMatchObject({
      ok: true,
    });
  });

  it('rejects a timestamp further in the future than the tolerance', async () => {
    expect(await verifySignature(BODY, signPayload(SECRET, BODY, T + 301), SECRET, { now: NOW })).toEqual({
      ok: false,
      reason: 'timestamp_out_of_tolerance',
    });
    expect(await verifySignature(BODY, signPayload(SECRET, BODY, T + 300), SECRET, { now: NOW })).toMatchObject({
      ok: true,
    });
  });

  it('honours a custom tolerance', async () => {
    const header = signPayload(SECRET, BODY, T - 10);
    expect(await verifySignature(BODY, header, SECRET, { now: NOW, toleranceSeconds: 5 })).toEqual({
      ok: false,
      reason: 'timestamp_out_of_tolerance',
    });
  });

  it('checks the time before the signature, so a stale replay is refused even when genuine', async () => {
    expect(await verifySignature(BODY, signPayload(SECRET, BODY, T - 3600), SECRET, { now: NOW })).toEqual({
      ok: false,
      reason: 'timestamp_out_of_tolerance',
    });
  });
});

describe('createDedupe', () => {
  it('reports an eventId as new once, then as seen for two minutes', () => {
    let now = 0;
    const dedupe = createDedupe({ now: () => now });
    expect(dedupe.seen('evt_1')).toBe(false);
    expect(dedupe.seen('evt_1')).toBe(true);
    now = 119_999;
    expect(dedupe.seen('evt_1')).toBe(true);
    now = 120_000;
    expect(dedupe.seen('evt_1')).toBe(false);
  });

  it('forgets an id on request so a failed event can be processed again', () => {
    const dedupe = createDedupe();
    dedupe.seen('evt_1');
    dedupe.forget('evt_1');
    expect(dedupe.seen('evt_1')).toBe(false);
  });

  it('drops expired and excess ids to bound memory', () => {
    let now = 0;
    const dedupe = createDedupe({ now: () => now, ttlMs: 10, maxEntries: 3 });
    for (const id of ['a', 'b', 'c', 'd']) dedupe.seen(id);
    expect(dedupe.size()).toBe(3);
    expect(dedupe.seen('a')).toBe(false);
    now = 100;
    dedupe.seen('e');
    expect(dedupe.size()).toBe(1);
  });
});

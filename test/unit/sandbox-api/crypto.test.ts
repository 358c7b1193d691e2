// Web Crypto subset (runtime) with node:crypto primitives: HMAC keys, digests and their errors.
import { createHmac, webcrypto } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CryptoKey as RuntimeCryptoKey, createCrypto } from '../../../sandbox-api/runtime/crypto.ts';
import { digestWithNode, hmacWithNode, randomWithNode } from './harness.ts';

const crypto = createCrypto({ randomBytes: randomWithNode, digest: digestWithNode, hmac: hmacWithNode });
const bytes = (text: string) => new TextEncoder().encode(text);
const errorName = (promise: Promise<unknown>) => promise.then(() => 'resolved', (error: Error) => error.name);

describe('crypto.subtle (runtime)', () => {
  it('digests like WebCrypto for every supported hash', async () => {
    for (const hash of ['SHA-1', 'SHA-256', 'SHA-384', 'SHA-512']) {
      const ours = new Uint8Array(await crypto.subtle.digest({ name: hash }, bytes('abc')));
      const node = new Uint8Array(await webcrypto.subtle.digest(hash, bytes('abc')));
      expect(ours).toEqual(node);
    }
    expect(await errorName(crypto.subtle.digest('MD5', bytes('x')))).toBe('NotSupportedError');
    expect(await errorName(crypto.subtle.digest('SHA-256', 'not bytes'))).toBe('TypeError');
  });

  it('signs like node:crypto for every hash, exports extractable keys and hides raw bytes', async () => {
    for (const hash of ['SHA-1', 'SHA-256', 'SHA-384', 'SHA-512'] as const) {
      const key = await crypto.subtle.importKey('raw', bytes('k'), { name: 'hmac', hash: { name: hash } }, true, ['sign', 'verify']);
      const signature = new Uint8Array(await crypto.subtle.sign({ name: 'HMAC' }, key, bytes('data')));
      expect(Buffer.from(signature).toString('hex')).toBe(createHmac(hash.replace('-', '').toLowerCase(), 'k').update('data').digest('hex'));
      expect(new Uint8Array(await crypto.subtle.exportKey('raw', key))).toEqual(bytes('k'));
      expect(key.algorithm).toEqual({ name: 'HMAC', hash: { name: hash }, length: 8 });
      expect(Reflect.ownKeys(key)).toEqual([]);
      expect(JSON.stringify(key)).toBe('{}');
    }
  });

  it('enforces key usages, formats and algorithms with DOMException names', async () => {
    const verifyOnly = await crypto.subtle.importKey('raw', bytes('k'), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
    expect(await errorName(crypto.subtle.sign('HMAC', verifyOnly, bytes('x')))).toBe('InvalidAccessError');
    expect(await errorName(crypto.subtle.exportKey('raw', verifyOnly))).toBe('InvalidAccessError');
    verifyOnly.usages.push('sign');
    expect(await errorName(crypto.subtle.sign('HMAC', verifyOnly, bytes('x')))).toBe('InvalidAccessError');
    expect(await errorName(crypto.subtle.importKey('jwk', bytes('k'), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']))).toBe('NotSupportedError');
    expect(await errorName(crypto.subtle.importKey('raw', bytes('k'), { name: 'AES-GCM' }, false, ['encrypt']))).toBe('NotSupportedError');
    expect(await errorName(crypto.subtle.importKey('raw', bytes('k'), { name: 'HMAC', hash: 'SHA-256' }, false, []))).toBe('SyntaxError');
    expect(await errorName(crypto.subtle.importKey('raw', new Uint8Array(0), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']))).toBe('DataError');
    expect(await errorName((crypto.subtle as unknown as Record<string, () => Promise<unknown>>).encrypt())).toBe('NotSupportedError');
    expect(() => new (RuntimeCryptoKey as unknown as new () => unknown)()).toThrow(TypeError);
  });

  it('verifies only the exact signature', async () => {
    const key = await crypto.subtle.generateKey({ name: 'HMAC', hash: 'SHA-256' }, true, ['sign', 'verify']);
    expect((await crypto.subtle.exportKey('raw', key)).byteLength).toBe(64);
    const signature = new Uint8Array(await crypto.subtle.sign('HMAC', key, bytes('m')));
    expect(await crypto.subtle.verify('HMAC', key, signature, bytes('m'))).toBe(true);
    const tampered = signature.slice();
    tampered[31] ^= 1;
    expect(await crypto.subtle.verify('HMAC', key, tampered, bytes('m'))).toBe(false);
    expect(await crypto.subtle.verify('HMAC', key, signature.subarray(0, 16), bytes('m'))).toBe(false);
  });
});

describe('crypto.getRandomValues / randomUUID (runtime)', () => {
  it('accepts integer typed arrays only, up to 65536 bytes', () => {
    expect(crypto.getRandomValues(new Uint8Array(65536)).length).toBe(65536);
    expect(crypto.getRandomValues(new BigUint64Array(2)).length).toBe(2);
    const quota = (() => { try { crypto.getRandomValues(new Uint8Array(65537)); } catch (e) { return (e as Error).name; } })();
    const mismatch = (() => { try { crypto.getRandomValues(new Float64Array(2) as never); } catch (e) { return (e as Error).name; } })();
    expect([quota, mismatch]).toEqual(['QuotaExceededError', 'TypeMismatchError']);
  });

  it('makes RFC 4122 version 4 UUIDs', () => {
    const uuids = new Set(Array.from({ length: 50 }, () => crypto.randomUUID()));
    expect(uuids.size).toBe(50);
    for (const uuid of uuids) expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});

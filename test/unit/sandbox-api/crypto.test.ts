// The runtime's Crypto interface (crypto.ts) on node:crypto random bytes: getRandomValues,
// randomUUID, the illegal constructor and receiver checks, and `subtle` loaded only when read.
import { describe, expect, it } from 'vitest';
import { Crypto, createCrypto } from '../../../sandbox-api/runtime/crypto.ts';
import { randomWithNode } from './harness.ts';

let subtleLoads = 0;
const crypto = createCrypto(randomWithNode, () => {
  subtleLoads++;
  return 'the subtle object';
});
const errorName = (action: () => unknown): string => {
  try {
    action();
    return 'none';
  } catch (error) {
    return (error as Error).name;
  }
};

describe('crypto.getRandomValues / randomUUID (runtime)', () => {
  it('accepts integer typed arrays only, up to 65536 bytes', () => {
    expect(crypto.getRandomValues(new Uint8Array(65536)).length).toBe(65536);
    expect(crypto.getRandomValues(new BigUint64Array(2)).length).toBe(2);
    expect(errorName(() => crypto.getRandomValues(new Uint8Array(65537)))).toBe('QuotaExceededError');
    expect(errorName(() => crypto.getRandomValues(new Float64Array(2) as never))).toBe('TypeMismatchError');
    expect(errorName(() => crypto.getRandomValues(new DataView(new ArrayBuffer(4)) as never))).toBe(
      'TypeMismatchError',
    );
    expect(errorName(() => crypto.getRandomValues(new ArrayBuffer(4) as never))).toBe('TypeError');
  });

  it('fills the array it was given, in place', () => {
    const array = new Uint32Array(64);
    expect(crypto.getRandomValues(array)).toBe(array);
    expect(array.some((value) => value !== 0)).toBe(true);
  });

  it('makes RFC 4122 version 4 UUIDs', () => {
    const uuids = new Set(Array.from({ length: 50 }, () => crypto.randomUUID()));
    expect(uuids.size).toBe(50);
    for (const uuid of uuids)
      expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});

describe('the Crypto interface (runtime)', () => {
  it('cannot be constructed, and its methods refuse another receiver', () => {
    expect(() => new (Crypto as unknown as new () => unknown)()).toThrow(TypeError);
    const { getRandomValues, randomUUID } = crypto;
    expect(errorName(() => getRandomValues(new Uint8Array(1)))).toBe('TypeError');
    expect(errorName(() => randomUUID.call({}))).toBe('TypeError');
    expect(errorName(() => Reflect.get(Crypto.prototype, 'subtle', {}))).toBe('TypeError');
    expect(Object.prototype.toString.call(crypto)).toBe('[object Crypto]');
    expect(Crypto.name).toBe('Crypto');
  });

  it('loads SubtleCrypto only when `subtle` is read', () => {
    const before = subtleLoads;
    crypto.randomUUID();
    expect(subtleLoads).toBe(before);
    expect(crypto.subtle).toBe('the subtle object');
    expect(subtleLoads).toBe(before + 1);
  });
});

// Web Crypto subset for the isolate: getRandomValues, randomUUID, and SubtleCrypto digest plus
// HMAC (import/export raw, generate, sign, verify). Raw key bytes live only in a WeakMap closed
// over by createCrypto, never on the CryptoKey; HMAC verification compares in constant time here.
import { copyBufferSource } from './buffer-source.ts';
import type { DigestAlgorithm } from './contract.ts';
import { DOMException } from './dom-exception.ts';

export interface CryptoPrimitives {
  randomBytes(length: number): Uint8Array;
  digest(algorithm: DigestAlgorithm, data: Uint8Array): Uint8Array;
  hmac(algorithm: DigestAlgorithm, key: Uint8Array, data: Uint8Array): Uint8Array;
}

type KeyUsage = 'sign' | 'verify';
interface HmacKeyAlgorithm {
  name: 'HMAC';
  hash: { name: DigestAlgorithm };
  length: number;
}

const BLOCK_BYTES: Record<DigestAlgorithm, number> = { 'SHA-1': 64, 'SHA-256': 64, 'SHA-384': 128, 'SHA-512': 128 };
const MAX_RANDOM_BYTES = 65536;
const INTERNAL = Symbol('internal');

let makeKey: (algorithm: HmacKeyAlgorithm, extractable: boolean, usages: KeyUsage[]) => CryptoKey;
let isKey: (value: unknown) => value is CryptoKey;
let internalsOf: (key: CryptoKey) => { algorithm: HmacKeyAlgorithm; extractable: boolean; usages: KeyUsage[] };

export class CryptoKey {
  #algorithm: HmacKeyAlgorithm;
  #extractable: boolean;
  #usages: KeyUsage[];

  static {
    makeKey = (algorithm, extractable, usages) => new CryptoKey(INTERNAL, algorithm, extractable, usages);
    isKey = (value): value is CryptoKey => value !== null && typeof value === 'object' && #algorithm in value;
    internalsOf = (key) => ({ algorithm: key.#algorithm, extractable: key.#extractable, usages: key.#usages });
  }

  constructor(token: symbol, algorithm: HmacKeyAlgorithm, extractable: boolean, usages: KeyUsage[]) {
    if (token !== INTERNAL) throw new TypeError('Illegal constructor');
    this.#algorithm = algorithm;
    this.#extractable = extractable;
    this.#usages = usages;
  }

  get type(): 'secret' {
    return 'secret';
  }

  get extractable(): boolean {
    return this.#extractable;
  }

  // Copies: the internal slots must not change when a caller mutates what it was given.
  get algorithm(): HmacKeyAlgorithm {
    return { name: 'HMAC', hash: { name: this.#algorithm.hash.name }, length: this.#algorithm.length };
  }

  get usages(): KeyUsage[] {
    return [...this.#usages];
  }

  get [Symbol.toStringTag](): string {
    return 'CryptoKey';
  }
}

function algorithmName(algorithm: unknown): string {
  const name = typeof algorithm === 'string' ? algorithm : (algorithm as { name?: unknown } | null)?.name;
  if (typeof name !== 'string') throw new TypeError('Algorithm: name is missing');
  return name;
}

function normalizeHash(algorithm: unknown): DigestAlgorithm {
  const name = algorithmName(algorithm).toUpperCase();
  const known: DigestAlgorithm[] = ['SHA-1', 'SHA-256', 'SHA-384', 'SHA-512'];
  const hash = known.find((candidate) => candidate === name);
  if (hash === undefined) throw new DOMException(`Unrecognized algorithm name: ${name}`, 'NotSupportedError');
  return hash;
}

function requireHmac(algorithm: unknown): void {
  if (algorithmName(algorithm).toUpperCase() !== 'HMAC') {
    throw new DOMException(`Algorithm not supported in this runtime: ${algorithmName(algorithm)} (only HMAC and digests)`, 'NotSupportedError');
  }
}

function bufferSource(value: unknown, what: string): Uint8Array {
  const bytes = copyBufferSource(value);
  if (bytes === null) throw new TypeError(`${what} must be an ArrayBuffer or ArrayBufferView`);
  return bytes;
}

function checkUsages(usages: unknown): KeyUsage[] {
  if (!Array.isArray(usages)) throw new TypeError('keyUsages must be an array');
  for (const usage of usages) {
    if (usage !== 'sign' && usage !== 'verify') throw new DOMException(`Unsupported key usage for HMAC: ${String(usage)}`, 'SyntaxError');
  }
  if (usages.length === 0) throw new DOMException('Usages cannot be empty when creating a key.', 'SyntaxError');
  return [...new Set(usages as KeyUsage[])];
}

function isIntegerTypedArray(value: unknown): value is ArrayBufferView {
  return (
    value instanceof Int8Array || value instanceof Uint8Array || value instanceof Uint8ClampedArray ||
    value instanceof Int16Array || value instanceof Uint16Array || value instanceof Int32Array ||
    value instanceof Uint32Array || value instanceof BigInt64Array || value instanceof BigUint64Array
  );
}

/** Equal-length inputs are compared without an early exit; the length itself is not secret. */
function timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a[i] ^ b[i];
  return difference === 0;
}

export function createCrypto(primitives: CryptoPrimitives) {
  const keyBytes = new WeakMap<CryptoKey, Uint8Array>();

  function keyFor(key: unknown, usage: KeyUsage): { raw: Uint8Array; hash: DigestAlgorithm } {
    if (!isKey(key)) throw new TypeError('key must be a CryptoKey');
    const internals = internalsOf(key);
    if (!internals.usages.includes(usage)) throw new DOMException(`key does not allow "${usage}"`, 'InvalidAccessError');
    return { raw: keyBytes.get(key) as Uint8Array, hash: internals.algorithm.hash.name };
  }

  function newKey(bytes: Uint8Array, hash: DigestAlgorithm, extractable: boolean, usages: KeyUsage[]): CryptoKey {
    const key = makeKey({ name: 'HMAC', hash: { name: hash }, length: bytes.length * 8 }, Boolean(extractable), usages);
    keyBytes.set(key, bytes);
    return key;
  }

  const subtle = {
    async digest(algorithm: unknown, data: unknown): Promise<ArrayBuffer> {
      const hash = normalizeHash(algorithm);
      return primitives.digest(hash, bufferSource(data, 'data')).slice().buffer;
    },
    async importKey(format: string, keyData: unknown, algorithm: unknown, extractable: boolean, usages: unknown): Promise<CryptoKey> {
      requireHmac(algorithm);
      if (format !== 'raw') throw new DOMException(`Key format not supported in this runtime: ${String(format)} (only "raw")`, 'NotSupportedError');
      const hashParam = (algorithm as { hash?: unknown }).hash;
      if (hashParam === undefined) throw new TypeError('HmacImportParams: hash is required');
      const hash = normalizeHash(hashParam);
      const checkedUsages = checkUsages(usages);
      const bytes = bufferSource(keyData, 'keyData');
      if (bytes.length === 0) throw new DOMException('HMAC key data must not be empty', 'DataError');
      const length = (algorithm as { length?: unknown }).length;
      if (length !== undefined && Number(length) !== bytes.length * 8) throw new DOMException('HMAC key length does not match the key data', 'DataError');
      return newKey(bytes, hash, extractable, checkedUsages);
    },
    async generateKey(algorithm: unknown, extractable: boolean, usages: unknown): Promise<CryptoKey> {
      requireHmac(algorithm);
      const hash = normalizeHash((algorithm as { hash?: unknown }).hash);
      const checkedUsages = checkUsages(usages);
      const lengthBits = (algorithm as { length?: unknown }).length;
      const length = lengthBits === undefined ? BLOCK_BYTES[hash] : Math.ceil(Number(lengthBits) / 8);
      if (!Number.isInteger(length) || length <= 0 || length > 1024) throw new DOMException('Invalid HMAC key length', 'OperationError');
      return newKey(primitives.randomBytes(length), hash, extractable, checkedUsages);
    },
    async exportKey(format: string, key: unknown): Promise<ArrayBuffer> {
      if (!isKey(key)) throw new TypeError('key must be a CryptoKey');
      if (format !== 'raw') throw new DOMException(`Key format not supported in this runtime: ${String(format)} (only "raw")`, 'NotSupportedError');
      if (!internalsOf(key).extractable) throw new DOMException('key is not extractable', 'InvalidAccessError');
      return (keyBytes.get(key) as Uint8Array).slice().buffer;
    },
    async sign(algorithm: unknown, key: unknown, data: unknown): Promise<ArrayBuffer> {
      requireHmac(algorithm);
      const { raw, hash } = keyFor(key, 'sign');
      return primitives.hmac(hash, raw, bufferSource(data, 'data')).slice().buffer;
    },
    async verify(algorithm: unknown, key: unknown, signature: unknown, data: unknown): Promise<boolean> {
      requireHmac(algorithm);
      const { raw, hash } = keyFor(key, 'verify');
      const expected = primitives.hmac(hash, raw, bufferSource(data, 'data'));
      return timingSafeEqual(expected, bufferSource(signature, 'signature'));
    },
  };
  for (const method of ['encrypt', 'decrypt', 'deriveBits', 'deriveKey', 'wrapKey', 'unwrapKey']) {
    (subtle as Record<string, unknown>)[method] = async () => {
      throw new DOMException(`crypto.subtle.${method} is not supported in this runtime (only digest and HMAC)`, 'NotSupportedError');
    };
  }

  function getRandomValues<T extends ArrayBufferView>(array: T): T {
    if (!isIntegerTypedArray(array)) {
      throw new DOMException('The data argument must be an integer-type TypedArray', 'TypeMismatchError');
    }
    if (array.byteLength > MAX_RANDOM_BYTES) {
      throw new DOMException(`The ArrayBufferView's byte length (${array.byteLength}) exceeds the number of bytes of entropy available via this API (${MAX_RANDOM_BYTES})`, 'QuotaExceededError');
    }
    new Uint8Array(array.buffer, array.byteOffset, array.byteLength).set(primitives.randomBytes(array.byteLength));
    return array;
  }

  function randomUUID(): string {
    const bytes = primitives.randomBytes(16);
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }

  return { getRandomValues, randomUUID, subtle };
}

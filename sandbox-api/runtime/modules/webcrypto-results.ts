// What a SubtleCrypto call's answer becomes in the isolate (part of the webcrypto module): the
// bridge's value re-checked member by member and rebuilt from fresh objects (ArrayBuffer, JWK
// dictionary, key descriptor), and a host failure turned into a fresh DOMException or TypeError of
// this realm. Nothing the host sent is handed to guest code as it came.
import type { CryptoKeyDescriptor } from '../contract.ts';

const KEY_TYPES = new Set(['secret', 'public', 'private']);
const USAGES = new Set(['encrypt', 'decrypt', 'sign', 'verify', 'deriveKey', 'deriveBits', 'wrapKey', 'unwrapKey']);
const JWK_STRINGS = ['kty', 'use', 'alg', 'crv', 'x', 'y', 'd', 'n', 'e', 'p', 'q', 'dp', 'dq', 'qi', 'k'];
/** The DOMException names WebCrypto rejects with; any other code from the host becomes an OperationError. */
const DOM_NAMES = new Set([
  'NotSupportedError',
  'SyntaxError',
  'InvalidAccessError',
  'DataError',
  'OperationError',
  'QuotaExceededError',
  'InvalidStateError',
  'NotAllowedError',
]);

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

function malformed(): never {
  throw new TypeError('crypto: the host returned a malformed answer');
}

function str(value: unknown): string {
  if (typeof value !== 'string') malformed();
  return value;
}

function num(value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) malformed();
  return value;
}

/** The KeyAlgorithm dictionary a key shows, with the members its type has. */
function keyAlgorithm(value: unknown): Record<string, unknown> {
  if (!isRecord(value)) malformed();
  const algorithm: Record<string, unknown> = { name: str(value.name) };
  if (value.namedCurve !== undefined) algorithm.namedCurve = str(value.namedCurve);
  if (value.modulusLength !== undefined) algorithm.modulusLength = num(value.modulusLength);
  if (value.publicExponent !== undefined) {
    if (!(value.publicExponent instanceof Uint8Array)) malformed();
    algorithm.publicExponent = new Uint8Array(value.publicExponent);
  }
  if (value.hash !== undefined) algorithm.hash = { name: str(isRecord(value.hash) ? value.hash.name : undefined) };
  if (value.length !== undefined) algorithm.length = num(value.length);
  return algorithm;
}

/** A key descriptor from the host, checked: the handle a positive integer, the slots of their types. */
export function keyDescriptor(value: unknown): CryptoKeyDescriptor & { algorithm: Record<string, unknown> } {
  if (!isRecord(value) || !Number.isSafeInteger(value.handle) || (value.handle as number) <= 0) malformed();
  if (!KEY_TYPES.has(value.type as string) || typeof value.extractable !== 'boolean' || !Array.isArray(value.usages))
    malformed();
  const usages: string[] = [];
  for (const usage of value.usages) {
    if (!USAGES.has(usage as string)) malformed();
    usages.push(usage as string);
  }
  return {
    handle: value.handle as number,
    type: value.type as CryptoKeyDescriptor['type'],
    extractable: value.extractable,
    algorithm: keyAlgorithm(value.algorithm) as CryptoKeyDescriptor['algorithm'] & Record<string, unknown>,
    usages,
  };
}

function jsonWebKey(value: unknown): Record<string, unknown> {
  if (!isRecord(value)) malformed();
  const jwk: Record<string, unknown> = {};
  for (const member of JWK_STRINGS) if (value[member] !== undefined) jwk[member] = str(value[member]);
  if (value.ext !== undefined) {
    if (typeof value.ext !== 'boolean') malformed();
    jwk.ext = value.ext;
  }
  if (value.key_ops !== undefined) {
    if (!Array.isArray(value.key_ops)) malformed();
    jwk.key_ops = value.key_ops.map(str);
  }
  if (value.oth !== undefined) {
    if (!Array.isArray(value.oth)) malformed();
    jwk.oth = value.oth.map((prime) => {
      if (!isRecord(prime)) malformed();
      const entry: Record<string, string> = {};
      for (const member of ['r', 'd', 't']) if (prime[member] !== undefined) entry[member] = str(prime[member]);
      return entry;
    });
  }
  return jwk;
}

/** The value a SubtleCrypto promise resolves with: an ArrayBuffer, a boolean, a JWK, a CryptoKey or a CryptoKeyPair. */
export function subtleResult(value: unknown, makeKey: (descriptor: unknown) => unknown): unknown {
  if (!isRecord(value)) malformed();
  switch (value.kind) {
    case 'bytes':
      if (!(value.bytes instanceof Uint8Array)) malformed();
      return value.bytes.slice().buffer;
    case 'boolean':
      if (typeof value.value !== 'boolean') malformed();
      return value.value;
    case 'jwk':
      return jsonWebKey(value.jwk);
    case 'key':
      return makeKey(value.key);
    case 'pair':
      return { publicKey: makeKey(value.publicKey), privateKey: makeKey(value.privateKey) };
    default:
      return malformed();
  }
}

/** A fresh error of this realm for a host failure: a TypeError, or a DOMException of a WebCrypto name. */
export function subtleError(code: string, message: string): Error {
  if (code === 'TypeError') return new TypeError(message);
  return new DOMException(message, DOM_NAMES.has(code) ? code : 'OperationError');
}

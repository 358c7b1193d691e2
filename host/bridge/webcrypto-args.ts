// Checks a SubtleCrypto call as it arrives from an isolate (BridgePrimitives.subtle), before the
// host's WebCrypto sees it: every argument of the shape the runtime makes (sandbox-api/runtime/
// modules/webcrypto-args.ts), only the standard's algorithms, and the bounds of docs/limits.md
// (input size, RSA key generation, PBKDF2 work). It never trusts the isolate: anything else is
// refused as data, and it reads nothing but own data properties of plain copies.
import {
  SUBTLE_ALGORITHM_MEMBERS,
  SUBTLE_LIMITS,
  SUBTLE_OPERATIONS,
  SUBTLE_SIGNATURES,
  type SubtleArgumentKind,
  type SubtleOperation,
} from '../../sandbox-api/runtime/contract.ts';
import { isOwnBytes } from './own-bytes.ts';

const ALGORITHM_MEMBERS = new Map(SUBTLE_ALGORITHM_MEMBERS);
const JWK_STRINGS = new Set(['kty', 'use', 'alg', 'crv', 'x', 'y', 'd', 'n', 'e', 'p', 'q', 'dp', 'dq', 'qi', 'k']);
const MAX_LIST = 16;

/**
 * The algorithms of the WebCrypto standard this runtime offers (upper case). The host's WebCrypto
 * knows more (experimental ones that change between Node versions and print process warnings):
 * those are refused as unknown, as a runtime without them would.
 */
const ALGORITHMS = new Set([
  'SHA-1',
  'SHA-256',
  'SHA-384',
  'SHA-512',
  'HMAC',
  'RSASSA-PKCS1-V1_5',
  'RSA-PSS',
  'RSA-OAEP',
  'ECDSA',
  'ECDH',
  'ED25519',
  'X25519',
  'AES-GCM',
  'AES-CBC',
  'AES-CTR',
  'AES-KW',
  'PBKDF2',
  'HKDF',
]);

/**
 * A call as checked: the method and its arguments, with handles where keys go (webcrypto.ts swaps in the host's keys).
 */
export interface CheckedCall {
  operation: SubtleOperation;
  args: unknown[];
  /** Bytes and characters of the arguments (an upper bound of an imported key's material). */
  inputBytes: number;
}

/** A call refused before Node saw it, with the error name the isolate gets. */
export class Refusal {
  readonly code: string;
  readonly message: string;

  constructor(code: string, message: string) {
    this.code = code;
    this.message = message;
  }
}

const refuse = (message: string, code = 'TypeError'): never => {
  throw new Refusal(code, message);
};

type Budget = { left: number };

function spend(budget: Budget, amount: number): void {
  budget.left -= amount;
  if (budget.left < 0)
    refuse(
      `the arguments of one crypto.subtle call may hold at most ${SUBTLE_LIMITS.inputBytes} bytes`,
      'QuotaExceededError',
    );
}

const isPlainRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  !ArrayBuffer.isView(value) &&
  Object.getPrototypeOf(value) === Object.prototype;

const isPrimitive = (value: unknown): boolean =>
  value === null || value === undefined || ['string', 'number', 'boolean'].includes(typeof value);

export const isHandle = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value > 0;

function string(value: unknown, budget: Budget, what: string): string {
  if (typeof value !== 'string') return refuse(`${what} must be a string`);
  spend(budget, value.length);
  return value;
}

/** A BufferSource copy, or a primitive the host's WebCrypto will refuse with its own TypeError. */
function bytes(value: unknown, budget: Budget, what: string): unknown {
  if (value instanceof Uint8Array) {
    // Never read: the guest could change it while the host's WebCrypto does.
    if (!isOwnBytes(value)) refuse(`${what} must not be shared memory`);
    spend(budget, value.byteLength);
    return value;
  }
  if (!isPrimitive(value)) refuse(`${what} must be bytes`);
  return value;
}

function members(
  value: Record<string, unknown>,
  allowed: (name: string) => boolean,
  what: string,
): [string, unknown][] {
  const entries = Object.entries(value);
  for (const [name] of entries) if (!allowed(name)) refuse(`${what} has an unknown member`);
  return entries;
}

function algorithmName(name: string): void {
  if (!ALGORITHMS.has(name.toUpperCase())) refuse('Unrecognized algorithm name', 'NotSupportedError');
}

function algorithm(value: unknown, budget: Budget, depth = 0): unknown {
  if (typeof value === 'string') {
    algorithmName(string(value, budget, 'an algorithm'));
    return value;
  }
  if (!isPlainRecord(value)) return refuse('an algorithm must be a string or a dictionary');
  const copy: Record<string, unknown> = {};
  for (const [name, item] of members(value, (member) => ALGORITHM_MEMBERS.has(member), 'an algorithm')) {
    const kind = ALGORITHM_MEMBERS.get(name);
    if (kind === 'string') copy[name] = string(item, budget, name);
    else if (kind === 'number') copy[name] = isPrimitive(item) ? item : refuse(`${name} must be a number`);
    else if (kind === 'bytes') copy[name] = bytes(item, budget, name);
    else if (kind === 'key') copy[name] = item === null || isHandle(item) ? item : refuse('public must be a key');
    else copy[name] = depth === 0 ? algorithm(item, budget, 1) : refuse('a hash has no hash');
  }
  if (typeof copy.name === 'string') algorithmName(copy.name);
  return copy;
}

function strings(value: unknown, budget: Budget, what: string): string[] {
  if (!Array.isArray(value) || value.length > MAX_LIST)
    return refuse(`${what} must be a list of at most ${MAX_LIST} strings`);
  return value.map((item) => string(item, budget, what));
}

function jwk(value: Record<string, unknown>, budget: Budget): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const [name, item] of members(
    value,
    (member) => JWK_STRINGS.has(member) || member === 'ext' || member === 'key_ops' || member === 'oth',
    'a JWK',
  )) {
    if (name === 'ext') copy.ext = typeof item === 'boolean' ? item : refuse('ext must be a boolean');
    else if (name === 'key_ops') copy.key_ops = strings(item, budget, 'key_ops');
    else if (name === 'oth') {
      if (!Array.isArray(item) || item.length > MAX_LIST) refuse(`oth must be a list of at most ${MAX_LIST} entries`);
      copy.oth = (item as unknown[]).map((prime) => {
        if (!isPlainRecord(prime)) return refuse('an oth entry must be a dictionary');
        const entry: Record<string, string> = {};
        for (const [member, part] of members(prime, (m) => m === 'r' || m === 'd' || m === 't', 'an oth entry'))
          entry[member] = string(part, budget, member);
        return entry;
      });
    } else copy[name] = string(item, budget, name);
  }
  return copy;
}

function argument(kind: SubtleArgumentKind, value: unknown, budget: Budget): unknown {
  switch (kind) {
    case 'algorithm':
      return algorithm(value, budget);
    case 'key':
      return value === null || isHandle(value) ? value : refuse('a key must be a handle');
    case 'bytes':
      return bytes(value, budget, 'data');
    case 'boolean':
      return typeof value === 'boolean' ? value : refuse('extractable must be a boolean');
    case 'usages':
      return strings(value, budget, 'keyUsages');
    case 'format':
      return string(value, budget, 'format');
    case 'length':
      return isPrimitive(value) ? value : refuse('length must be a number');
    case 'keyData':
      if (value instanceof Uint8Array) return bytes(value, budget, 'keyData');
      if (isPlainRecord(value)) return jwk(value, budget);
      return isPrimitive(value) ? value : refuse('keyData must be bytes or a JWK');
  }
}

const nameOf = (value: unknown): string =>
  (typeof value === 'string'
    ? value
    : isPlainRecord(value) && typeof value.name === 'string'
      ? value.name
      : ''
  ).toUpperCase();

/** The work bounds: RSA key generation and PBKDF2 are the only calls whose cost the caller picks freely. */
function checkWork(operation: SubtleOperation, args: unknown[]): void {
  const first = args[0];
  if (operation === 'generateKey' && nameOf(first).startsWith('RSA') && isPlainRecord(first)) {
    const bits = Number(first.modulusLength);
    if (bits > SUBTLE_LIMITS.rsaModulusBits)
      refuse(
        `RSA keys are generated with at most ${SUBTLE_LIMITS.rsaModulusBits} bits in this runtime`,
        'OperationError',
      );
  }
  if ((operation === 'deriveBits' || operation === 'deriveKey') && nameOf(first) === 'PBKDF2' && isPlainRecord(first)) {
    if (Number(first.iterations) > SUBTLE_LIMITS.pbkdf2Iterations)
      refuse(`PBKDF2 runs at most ${SUBTLE_LIMITS.pbkdf2Iterations} iterations in this runtime`, 'OperationError');
    const derived =
      operation === 'deriveBits' ? Number(args[2]) : isPlainRecord(args[2]) ? Number(args[2].length ?? 0) : 0;
    if (derived > SUBTLE_LIMITS.pbkdf2Bits)
      refuse(`PBKDF2 derives at most ${SUBTLE_LIMITS.pbkdf2Bits} bits in this runtime`, 'OperationError');
  }
}

/** The handles of collected keys a call carries, checked, or a Refusal thrown. */
export function checkReleased(released: unknown): number[] {
  if (!Array.isArray(released) || released.length > SUBTLE_LIMITS.keys || !released.every(isHandle))
    return refuse('released handles are not a list of handles');
  return released as number[];
}

/** The call checked and copied into host objects, or a Refusal thrown. */
export function checkCall(operation: unknown, args: unknown): CheckedCall {
  if (typeof operation !== 'string' || !(SUBTLE_OPERATIONS as readonly string[]).includes(operation))
    return refuse('no such SubtleCrypto method');
  const op = operation as SubtleOperation;
  const kinds = SUBTLE_SIGNATURES[op];
  if (!Array.isArray(args) || args.length > kinds.length) return refuse('the arguments are not a list');
  const budget: Budget = { left: SUBTLE_LIMITS.inputBytes };
  const checked = args.map((value, index) => argument(kinds[index], value, budget));
  checkWork(op, checked);
  return { operation: op, args: checked, inputBytes: SUBTLE_LIMITS.inputBytes - budget.left };
}

/**
 * At most how many bytes of key material a call may add to the table, known before the work: an
 * import's or unwrap's input, a generated or derived key's size from its algorithm.
 */
export function newKeyBytes(call: CheckedCall): number {
  const made =
    call.operation === 'generateKey' ? call.args[0] : call.operation === 'deriveKey' ? call.args[2] : undefined;
  if (call.operation === 'importKey' || call.operation === 'unwrapKey') return call.inputBytes;
  if (made === undefined) return 0;
  if (!isPlainRecord(made)) return 128;
  const bits = (value: unknown): number =>
    typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.ceil(value / 8) : 0;
  // An RSA pair: the modulus in each key, the private one's four more parts of half its size.
  if (made.modulusLength !== undefined) return bits(Number(made.modulusLength)) * 4;
  // A key without a length (HMAC's default is its hash's block, at most 128 bytes) counts as 128.
  return Math.max(bits(Number(made.length ?? 0)), 128);
}

/** Where keys go in a method's arguments (top level), for swapping handles for the host's keys. */
export function keyPositions(operation: SubtleOperation): number[] {
  const positions: number[] = [];
  SUBTLE_SIGNATURES[operation].forEach((kind, index) => kind === 'key' && positions.push(index));
  return positions;
}

/** Whether the argument at `index` is an algorithm dictionary (which may hold a `public` key). */
export const isAlgorithmPosition = (operation: SubtleOperation, index: number): boolean =>
  SUBTLE_SIGNATURES[operation][index] === 'algorithm';

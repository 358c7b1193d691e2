// The host side of the isolate's SubtleCrypto (BridgePrimitives.subtle): one realm's key table
// (Node CryptoKeys behind opaque handles, bounded, released when the isolate's CryptoKeys are
// collected and dropped with the isolate) and each call performed by Node's WebCrypto, whose work
// runs on libuv's thread pool, never on the worker's main thread. It never hands an isolate a
// Node object, a host Error or key material of a key that is not extractable.
import { webcrypto, type webcrypto as WebCrypto } from 'node:crypto';
import type {
  BridgeResult,
  CryptoKeyDescriptor,
  KeyAlgorithmData,
  SubtleValue,
} from '../../sandbox-api/runtime/contract.ts';
import { SUBTLE_ABANDONED, SUBTLE_LIMITS } from '../../sandbox-api/runtime/contract.ts';
import {
  Refusal,
  checkCall,
  checkReleased,
  isAlgorithmPosition,
  isHandle,
  keyPositions,
  newKeyBytes,
  type CheckedCall,
} from './webcrypto-args.ts';

type NodeKey = WebCrypto.CryptoKey;
/** Node's CryptoKey class (a global of Node's; `crypto.webcrypto` has none). */
const NodeCryptoKey = (globalThis as unknown as { CryptoKey: abstract new () => NodeKey }).CryptoKey;

/**
 * Calls of all realms of this worker in flight on the thread pool at once. libuv's pool has four
 * threads by default, shared with DNS lookups (every outbound fetch), zlib and files: crypto never
 * holds more than half of it, whatever the isolates ask. Waiting calls are served in arrival order,
 * and each realm has at most one call at a time, so realms take turns.
 */
export const WORKER_CRYPTO_SLOTS = 2;

/** The answer for a call whose result came after its integration finished its work (see SubtleOptions.late). */
export const ABANDONED = {
  ok: false,
  code: SUBTLE_ABANDONED,
  message: 'the integration finished its work before this call did',
} as const;

/** Handles are unique in the worker process: a handle of one realm names no key in another realm's table. */
let lastHandle = 0;

let running = 0;
const waiting: (() => void)[] = [];

async function withSlot<T>(work: () => Promise<T>): Promise<T> {
  if (running >= WORKER_CRYPTO_SLOTS) await new Promise<void>((resolve) => waiting.push(resolve));
  else running++;
  try {
    return await work();
  } finally {
    const next = waiting.shift();
    if (next !== undefined) next();
    else running--;
  }
}

/** Calls of this worker on the thread pool now, and waiting for a slot (for tests). */
export function workerCryptoLoad(): { running: number; waiting: number } {
  return { running, waiting: waiting.length };
}

export interface SubtleOptions {
  /** Whether the realm's isolate still lives; once it does not, the table is dropped and calls are refused. */
  alive(): boolean;
  /**
   * Asked when a call's result is ready: true when the integration has no work in flight (the result
   * must not settle the guest's promise then; the worker counts it as abandoned).
   */
  late?(): boolean;
  /** Bound of the key table (SUBTLE_LIMITS.keys unless a test sets it). */
  maxKeys?: number;
}

/**
 * What a key's material costs the table: its bytes for a secret key, RSA's modulus and private parts, a curve key's
 * few.
 */
function keyBytes(key: NodeKey, inputBytes: number): number {
  const algorithm = key.algorithm as { length?: unknown; modulusLength?: unknown };
  if (typeof algorithm.modulusLength === 'number')
    return Math.ceil(algorithm.modulusLength / 8) * (key.type === 'private' ? 3 : 1);
  if (typeof algorithm.length === 'number') return Math.ceil(algorithm.length / 8);
  // PBKDF2 and HKDF keys are the bytes they were imported from.
  if (key.type === 'secret') return inputBytes;
  return 128;
}

const failure = (code: string, message: string): BridgeResult<never> => ({
  ok: false,
  code,
  message: message.slice(0, 1_024),
});

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

/** Node's error as data: the standard's names and Node's messages (never a stack or a cause). */
function asFailure(error: unknown): BridgeResult<never> {
  if (error instanceof Refusal) return failure(error.code, error.message);
  if (error instanceof DOMException)
    return failure(DOM_NAMES.has(error.name) ? error.name : 'OperationError', String(error.message));
  if (error instanceof TypeError) return failure('TypeError', String(error.message));
  return failure('OperationError', 'The operation failed for an operation-specific reason');
}

function algorithmData(algorithm: Record<string, unknown>): KeyAlgorithmData {
  const data: KeyAlgorithmData = { name: String(algorithm.name) };
  if (typeof algorithm.namedCurve === 'string') data.namedCurve = algorithm.namedCurve;
  if (typeof algorithm.modulusLength === 'number') data.modulusLength = algorithm.modulusLength;
  if (algorithm.publicExponent instanceof Uint8Array) data.publicExponent = new Uint8Array(algorithm.publicExponent);
  const hash = algorithm.hash as { name?: unknown } | undefined;
  if (hash !== undefined) data.hash = { name: String(hash.name) };
  if (typeof algorithm.length === 'number') data.length = algorithm.length;
  return data;
}

/** How many keys a call may add to the table (checked before any work is done). */
const NEW_KEYS: Partial<Record<CheckedCall['operation'], number>> = {
  generateKey: 2,
  importKey: 1,
  deriveKey: 1,
  unwrapKey: 1,
};

/**
 * One realm's SubtleCrypto primitive. Every call is checked (webcrypto-args.ts), waits for a slot
 * of the worker's, runs in Node's WebCrypto with the realm's own keys, and answers as data.
 */
export function createSubtle(options: SubtleOptions) {
  const maxKeys = options.maxKeys ?? SUBTLE_LIMITS.keys;
  let keys: Map<number, { key: NodeKey; bytes: number }> | null = new Map();
  let heldBytes = 0;
  let busy = false;

  function table(): Map<number, { key: NodeKey; bytes: number }> {
    if (keys !== null && !options.alive()) {
      keys = null;
      heldBytes = 0;
    }
    if (keys === null) throw new Refusal('InvalidStateError', 'the isolate is gone');
    return keys;
  }

  function keyOf(handle: unknown): NodeKey | null {
    if (handle === null) return null;
    const entry = isHandle(handle) ? table().get(handle) : undefined;
    if (entry === undefined) throw new Refusal('TypeError', 'the key is not a CryptoKey of this isolate');
    return entry.key;
  }

  function release(handle: number): void {
    const entry = table().get(handle);
    if (entry === undefined) return;
    heldBytes -= entry.bytes;
    table().delete(handle);
  }

  function register(key: NodeKey, inputBytes: number): CryptoKeyDescriptor {
    const handle = ++lastHandle;
    const bytes = keyBytes(key, inputBytes);
    table().set(handle, { key, bytes });
    heldBytes += bytes;
    return {
      handle,
      type: key.type,
      extractable: key.extractable,
      algorithm: algorithmData(key.algorithm as unknown as Record<string, unknown>),
      usages: [...key.usages],
    };
  }

  function answer(result: unknown, inputBytes: number): SubtleValue {
    if (result instanceof ArrayBuffer) return { kind: 'bytes', bytes: new Uint8Array(result) };
    if (typeof result === 'boolean') return { kind: 'boolean', value: result };
    if (result instanceof NodeCryptoKey) return { kind: 'key', key: register(result, inputBytes) };
    const record = result as Record<string, unknown>;
    if (record.publicKey instanceof NodeCryptoKey && record.privateKey instanceof NodeCryptoKey) {
      return {
        kind: 'pair',
        publicKey: register(record.publicKey, inputBytes),
        privateKey: register(record.privateKey, inputBytes),
      };
    }
    return { kind: 'jwk', jwk: JSON.parse(JSON.stringify(record)) as Record<string, unknown> };
  }

  /** The arguments with the realm's Node keys where the isolate sent handles. */
  function withKeys(call: CheckedCall): unknown[] {
    const args = [...call.args];
    for (const index of keyPositions(call.operation)) if (index < args.length) args[index] = keyOf(args[index]);
    args.forEach((value, index) => {
      if (
        isAlgorithmPosition(call.operation, index) &&
        typeof value === 'object' &&
        value !== null &&
        'public' in value
      ) {
        args[index] = { ...value, public: keyOf((value as { public: unknown }).public) };
      }
    });
    return args;
  }

  /** Node's result for the call (nothing registered yet). */
  async function perform(call: CheckedCall): Promise<unknown> {
    const current = table();
    if (current.size + (NEW_KEYS[call.operation] ?? 0) > maxKeys) {
      throw new Refusal(
        'QuotaExceededError',
        `this isolate holds ${current.size} CryptoKeys, the most it may ` +
          `(${maxKeys}); keys are released once garbage-collected`,
      );
    }
    if (heldBytes + newKeyBytes(call) > SUBTLE_LIMITS.keyBytes) {
      throw new Refusal(
        'QuotaExceededError',
        `this isolate's CryptoKeys hold ${heldBytes} bytes of key material, and this key could take it past ` +
          `the most they may (${SUBTLE_LIMITS.keyBytes}); keys are released once garbage-collected`,
      );
    }
    const args = withKeys(call);
    const method = webcrypto.subtle[call.operation] as (...params: unknown[]) => Promise<unknown>;
    const result = await withSlot(() => {
      // A realm disposed while it waited for a slot starts no work.
      table();
      return method.apply(webcrypto.subtle, args);
    });
    // A realm gone meanwhile answers as gone (and keeps no key).
    table();
    return result;
  }

  /** Whether the integration finished its work before this answer (a realm no one claimed yet has none). */
  function late(): boolean {
    try {
      return keys !== null && options.alive() && options.late?.() === true;
    } catch {
      return false;
    }
  }

  async function call(operation: unknown, args: unknown, released: unknown): Promise<BridgeResult<SubtleValue>> {
    let result: unknown;
    let inputBytes = 0;
    let failed: BridgeResult<never> | null = null;
    try {
      // Released first: the isolate hands each collected key's handle over once, whatever becomes
      // of the call that carries it.
      for (const handle of checkReleased(released)) release(handle);
      if (busy) throw new Refusal('OperationError', 'one crypto.subtle call at a time per isolate');
      const checked = checkCall(operation, args);
      inputBytes = checked.inputBytes;
      busy = true;
      try {
        result = await perform(checked);
      } finally {
        busy = false;
      }
    } catch (error) {
      failed = asFailure(error);
    }
    // Success or failure, an answer must not settle the guest's promise once the integration is
    // idle (a call the isolate queued behind an abandoned one starts then, and would answer then).
    if (late()) return ABANDONED;
    if (failed !== null) return failed;
    try {
      return { ok: true, value: answer(result, inputBytes) };
    } catch (error) {
      return asFailure(error);
    }
  }

  return {
    /** The primitive itself (BridgePrimitives.subtle). */
    call,
    /** Keys in the table now (0 once the isolate is gone). */
    liveKeys: (): number => (keys !== null && options.alive() ? keys.size : 0),
    /** Bytes of key material the table holds now, as counted against SUBTLE_LIMITS.keyBytes. */
    keyMaterialBytes: (): number => (keys !== null && options.alive() ? heldBytes : 0),
  };
}

export type SubtleBridge = ReturnType<typeof createSubtle>;

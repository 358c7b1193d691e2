// The runtime's webcrypto module, loaded into an isolate the first time its guest touches
// `crypto.subtle`, `SubtleCrypto` or `CryptoKey` (modules.ts): SubtleCrypto's methods, computed by
// the host's WebCrypto across the bridge one call at a time, and CryptoKey objects that stand for
// keys held by the host. A key's handle lives in a private field only: no guest code can read it
// or make one up, and key material never enters the isolate unless an extractable key is exported.
import { SUBTLE_ABANDONED, type BridgeResult, type SubtleOperation, type SubtleValue } from '../contract.ts';
import { convertArguments } from './webcrypto-args.ts';
import { keyDescriptor, subtleError, subtleResult } from './webcrypto-results.ts';

export interface WebCryptoDeps {
  /** BridgePrimitives.subtle through bridge.ts. */
  call(operation: SubtleOperation, args: unknown[], released: number[]): Promise<BridgeResult<SubtleValue>>;
  /** V8's own constructor, captured before the runtime replaced the global (finalization-registry.ts). */
  FinalizationRegistry: FinalizationRegistryConstructor;
}

const INTERNAL = Symbol('internal');

let handleOf: (key: unknown) => number | undefined;
let makeKey: (value: unknown) => CryptoKey;
let isSubtle: (value: unknown) => boolean;
/** Set by createWebCrypto: tells the host a collected CryptoKey's handle can be released. */
let track: (key: CryptoKey, handle: number) => void = () => undefined;

export class CryptoKey {
  #handle: number;
  #type: string;
  #extractable: boolean;
  #algorithm: object;
  #usages: string[];

  static {
    handleOf = (value) =>
      typeof value === 'object' && value !== null && #handle in value ? (value as CryptoKey).#handle : undefined;
  }

  constructor(token: unknown, value?: unknown) {
    if (token !== INTERNAL) throw new TypeError('Illegal constructor');
    const descriptor = keyDescriptor(value);
    this.#handle = descriptor.handle;
    this.#type = descriptor.type;
    this.#extractable = descriptor.extractable;
    // The standard's cached objects: the same object every time, built once from the host's answer.
    this.#algorithm = descriptor.algorithm;
    this.#usages = descriptor.usages;
    track(this, descriptor.handle);
  }

  get type(): string {
    return this.#type;
  }

  get extractable(): boolean {
    return this.#extractable;
  }

  get algorithm(): object {
    return this.#algorithm;
  }

  get usages(): string[] {
    return this.#usages;
  }
}

export class SubtleCrypto {
  static {
    isSubtle = (value) => typeof value === 'object' && value !== null && #brand in value;
  }

  #brand = true;

  constructor(token?: unknown) {
    if (token !== INTERNAL) throw new TypeError('Illegal constructor');
    void this.#brand;
  }

  // Each method's length is its count of required arguments (WebIDL); `arguments` keeps the rest.
  encrypt(_algorithm: unknown, _key: unknown, _data: unknown): Promise<unknown> {
    return perform(this, 'encrypt', arguments);
  }

  decrypt(_algorithm: unknown, _key: unknown, _data: unknown): Promise<unknown> {
    return perform(this, 'decrypt', arguments);
  }

  sign(_algorithm: unknown, _key: unknown, _data: unknown): Promise<unknown> {
    return perform(this, 'sign', arguments);
  }

  verify(_algorithm: unknown, _key: unknown, _signature: unknown, _data: unknown): Promise<unknown> {
    return perform(this, 'verify', arguments);
  }

  digest(_algorithm: unknown, _data: unknown): Promise<unknown> {
    return perform(this, 'digest', arguments);
  }

  generateKey(_algorithm: unknown, _extractable: unknown, _keyUsages: unknown): Promise<unknown> {
    return perform(this, 'generateKey', arguments);
  }

  deriveKey(
    _algorithm: unknown,
    _baseKey: unknown,
    _derivedKeyType: unknown,
    _extractable: unknown,
    _keyUsages: unknown,
  ): Promise<unknown> {
    return perform(this, 'deriveKey', arguments);
  }

  deriveBits(_algorithm: unknown, _baseKey: unknown): Promise<unknown> {
    return perform(this, 'deriveBits', arguments);
  }

  importKey(
    _format: unknown,
    _keyData: unknown,
    _algorithm: unknown,
    _extractable: unknown,
    _keyUsages: unknown,
  ): Promise<unknown> {
    return perform(this, 'importKey', arguments);
  }

  exportKey(_format: unknown, _key: unknown): Promise<unknown> {
    return perform(this, 'exportKey', arguments);
  }

  wrapKey(_format: unknown, _key: unknown, _wrappingKey: unknown, _wrapAlgorithm: unknown): Promise<unknown> {
    return perform(this, 'wrapKey', arguments);
  }

  unwrapKey(
    _format: unknown,
    _wrappedKey: unknown,
    _unwrappingKey: unknown,
    _unwrapAlgorithm: unknown,
    _unwrappedKeyAlgorithm: unknown,
    _extractable: unknown,
    _keyUsages: unknown,
  ): Promise<unknown> {
    return perform(this, 'unwrapKey', arguments);
  }
}

// Outside the class body: a class that names itself inside gets renamed by the bundler (`_CryptoKey`).
makeKey = (value) => new CryptoKey(INTERNAL, value);

for (const [target, tag] of [
  [CryptoKey.prototype, 'CryptoKey'],
  [SubtleCrypto.prototype, 'SubtleCrypto'],
] as const) {
  Object.defineProperty(target, Symbol.toStringTag, {
    value: tag,
    writable: false,
    enumerable: false,
    configurable: true,
  });
}

let send: (operation: SubtleOperation, args: unknown[]) => Promise<BridgeResult<SubtleValue>> = () => {
  throw new TypeError('the webcrypto module is not set up');
};

/**
 * One method call: the arguments are copied now, synchronously (later changes to the caller's
 * buffers change nothing), then the call waits for the isolate's previous one and crosses. Always
 * a promise: a bad argument rejects it, as WebIDL says for promise-returning operations.
 */
async function perform(receiver: unknown, operation: SubtleOperation, given: ArrayLike<unknown>): Promise<unknown> {
  if (!isSubtle(receiver)) throw new TypeError('Illegal invocation');
  const args = convertArguments(operation, given, handleOf);
  const result = await send(operation, args);
  if (result.ok) return subtleResult(result.value, makeKey);
  // Answered after the integration finished its work: the guest's continuation must not run then.
  if (result.code === SUBTLE_ABANDONED) return new Promise<never>(() => undefined);
  throw subtleError(result.code, result.message);
}

export function createWebCrypto(deps: WebCryptoDeps) {
  const call = deps.call;
  // Handles of collected CryptoKeys, handed to the host with the next call. The callback is the
  // runtime's own and does nothing but remember a number: no guest code runs after a collection.
  let released: number[] = [];
  const registry = new deps.FinalizationRegistry((handle: number) => void released.push(handle));
  track = (key, handle) => registry.register(key, handle);

  // One call in flight per isolate (the host refuses a second): calls wait here, in the isolate's
  // own memory, never as copies held by the host.
  let tail: Promise<unknown> = Promise.resolve();
  send = (operation, args) => {
    const next = tail.then(() => {
      const handles = released;
      released = [];
      return call(operation, args, handles);
    });
    tail = next.then(
      () => undefined,
      () => undefined,
    );
    return next;
  };

  return { subtle: new SubtleCrypto(INTERNAL), SubtleCrypto, CryptoKey };
}

export type WebCryptoExports = ReturnType<typeof createWebCrypto>;

export default createWebCrypto;

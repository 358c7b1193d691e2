// The `crypto` global and its Crypto interface: getRandomValues and randomUUID on the host's random
// bytes (in the startup snapshot: cheap and used everywhere), and the `subtle` attribute, which
// loads the webcrypto module on first access (modules/webcrypto.ts). No SubtleCrypto code and no
// key material here.
import { DOMException } from './dom-exception.ts';

const MAX_RANDOM_BYTES = 65536;
const INTERNAL = Symbol('internal');

const unset = (): never => {
  throw new TypeError('crypto is not set up');
};
let randomBytes: (length: number) => Uint8Array = unset;
let subtle: () => unknown = unset;

function isIntegerTypedArray(value: ArrayBufferView): boolean {
  return (
    value instanceof Int8Array ||
    value instanceof Uint8Array ||
    value instanceof Uint8ClampedArray ||
    value instanceof Int16Array ||
    value instanceof Uint16Array ||
    value instanceof Int32Array ||
    value instanceof Uint32Array ||
    value instanceof BigInt64Array ||
    value instanceof BigUint64Array
  );
}

let check: (receiver: unknown) => void;

export class Crypto {
  #brand = true;

  static {
    check = (receiver) => {
      if (typeof receiver !== 'object' || receiver === null || !(#brand in receiver))
        throw new TypeError('Illegal invocation');
    };
  }

  constructor(token?: unknown) {
    if (token !== INTERNAL) throw new TypeError('Illegal constructor');
    void this.#brand;
  }

  get subtle(): unknown {
    check(this);
    return subtle();
  }

  getRandomValues<T extends ArrayBufferView | null>(array: T): T {
    check(this);
    if (!ArrayBuffer.isView(array))
      throw new TypeError(
        "Failed to execute 'getRandomValues' on 'Crypto': parameter 1 is not of type 'ArrayBufferView'",
      );
    if (!isIntegerTypedArray(array))
      throw new DOMException('The data argument must be an integer-type TypedArray', 'TypeMismatchError');
    if (array.byteLength > MAX_RANDOM_BYTES) {
      throw new DOMException(
        `The ArrayBufferView's byte length (${array.byteLength}) exceeds the number ` +
          `of bytes of entropy available via this API (${MAX_RANDOM_BYTES})`,
        'QuotaExceededError',
      );
    }
    new Uint8Array(array.buffer, array.byteOffset, array.byteLength).set(randomBytes(array.byteLength));
    return array;
  }

  randomUUID(): string {
    check(this);
    const bytes = randomBytes(16);
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, '0')).join('');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }
}

Object.defineProperty(Crypto.prototype, Symbol.toStringTag, {
  value: 'Crypto',
  writable: false,
  enumerable: false,
  configurable: true,
});

/**
 * The realm's one Crypto object, on the host's random bytes; `loadSubtle` gives the SubtleCrypto (loading its module
 * once).
 */
export function createCrypto(random: (length: number) => Uint8Array, loadSubtle: () => unknown): Crypto {
  randomBytes = random;
  subtle = loadSubtle;
  return new Crypto(INTERNAL);
}

// TextEncoder (UTF-8, written here) and TextDecoder: UTF-8 decoded here (utf8.ts), streaming
// included; every other label and encoding comes from the lazily loaded encoding module
// (modules/encoding.ts), loaded only when a decoder for another label is made.
import type { EncodingExports, LegacyDecoder } from './modules/encoding.ts';
import { Utf8Decoder, encodeIntoBuffer, utf8Encode } from './utf8.ts';
import { sharedBufferLength } from './late-intrinsics.ts';

export class TextEncoder {
  get encoding(): string {
    return 'utf-8';
  }

  encode(input: string = ''): Uint8Array {
    return utf8Encode(`${input}`);
  }

  encodeInto(source: string, destination: Uint8Array): { read: number; written: number } {
    const text = `${source}`;
    if (!(destination instanceof Uint8Array))
      throw new TypeError('TextEncoder.encodeInto: destination must be a Uint8Array');
    return encodeIntoBuffer(text, destination);
  }

  get [Symbol.toStringTag](): string {
    return 'TextEncoder';
  }
}

const UTF8_LABELS = ['unicode-1-1-utf-8', 'unicode11utf8', 'unicode20utf8', 'utf-8', 'utf8', 'x-unicode20utf8'];
const EMPTY = new Uint8Array(0);

/** A WebIDL dictionary argument: undefined and null are empty; anything else must be an object. */
function dictionary(value: unknown, what: string): Record<string, unknown> | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'object' && typeof value !== 'function')
    throw new TypeError(`${what}: the options must be an object`);
  return value as Record<string, unknown>;
}

const detached = (buffer: ArrayBufferLike): boolean => (buffer as { detached?: boolean }).detached === true;

/**
 * The bytes of a BufferSource, not copied: decode() reads them synchronously, after the options
 * (the point where the standard takes its copy), and no guest code runs while it reads. A detached
 * buffer holds no bytes (WebIDL), rather than making the view constructor throw.
 */
function bytesOf(input: unknown): Uint8Array {
  if (input instanceof ArrayBuffer) return detached(input) ? EMPTY : new Uint8Array(input);
  if (ArrayBuffer.isView(input))
    return detached(input.buffer) ? EMPTY : new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
  // decode() takes an [AllowShared] BufferSource: a SharedArrayBuffer too (decoded here, or copied on its way to the
  // host).
  if (sharedBufferLength(input) !== undefined) return new Uint8Array(input as SharedArrayBuffer);
  throw new TypeError('TextDecoder.decode: the input must be an ArrayBuffer or ArrayBufferView');
}

/** `encodings` loads the encoding module: called only for a label that is not UTF-8's. */
export function createTextDecoderClass(encodings: () => EncodingExports) {
  class TextDecoder {
    readonly #encoding: string;
    readonly #fatal: boolean;
    readonly #ignoreBOM: boolean;
    readonly #decoder: LegacyDecoder;

    constructor(label: unknown = 'utf-8', options: unknown = undefined) {
      const text = `${label as string}`; // WebIDL's ToString: a Symbol throws, String() would not
      const settings = dictionary(options, 'TextDecoder');
      this.#fatal = Boolean(settings?.fatal);
      this.#ignoreBOM = Boolean(settings?.ignoreBOM);
      // Only ASCII whitespace is trimmed and only ASCII letters fold (the standard's "get an encoding").
      const key = text
        .replace(/^[\t\n\f\r ]+|[\t\n\f\r ]+$/g, '')
        .replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
      if (UTF8_LABELS.includes(key)) {
        this.#encoding = 'utf-8';
        this.#decoder = new Utf8Decoder(this.#fatal, this.#ignoreBOM);
        return;
      }
      const module = encodings();
      const encoding = module.encodingOf(key);
      if (encoding === null || encoding === 'replacement')
        throw new RangeError(`TextDecoder: the encoding label '${text}' is not supported`);
      this.#encoding = encoding;
      this.#decoder = module.createDecoder(encoding, this.#fatal, this.#ignoreBOM);
    }

    get encoding(): string {
      return this.#encoding;
    }

    get fatal(): boolean {
      return this.#fatal;
    }

    get ignoreBOM(): boolean {
      return this.#ignoreBOM;
    }

    decode(input: unknown = undefined, options: unknown = undefined): string {
      const bytes = input === undefined ? EMPTY : bytesOf(input);
      const stream = Boolean(dictionary(options, 'TextDecoder.decode')?.stream);
      return this.#decoder.decode(bytes, stream);
    }

    get [Symbol.toStringTag](): string {
      return 'TextDecoder';
    }
  }
  return TextDecoder;
}

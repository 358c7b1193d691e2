// Blob and File (File API subset): immutable byte sequences with a type, and a File's name and
// lastModified. Bytes are whole arrays (no streams). Pure: no bridge; `blobBytes` is the runtime's
// internal read access for bodies and multipart encoding, never reachable from a guest object.
import { copyBufferSource } from './buffer-source.ts';
import { utf8Decode, utf8Encode } from './utf8.ts';

let bytesOf: (blob: Blob) => Uint8Array;

/** The bytes of a Blob (not a copy: callers must not write to them). */
export function blobBytes(blob: Blob): Uint8Array {
  return bytesOf(blob);
}

export function isBlob(value: unknown): value is Blob {
  return value instanceof Blob;
}

/** The File API's type normalisation: printable ASCII lower-cased, anything else makes it ''. */
function normalizeType(type: unknown): string {
  const text = type === undefined ? '' : String(type);
  return /^[\u0020-\u007e]*$/.test(text) ? text.toLowerCase() : '';
}

function partBytes(part: unknown): Uint8Array {
  if (part instanceof Blob) return bytesOf(part);
  const bytes = copyBufferSource(part);
  return bytes ?? utf8Encode(String(part));
}

function concat(chunks: Uint8Array[]): Uint8Array {
  let length = 0;
  for (const chunk of chunks) length += chunk.length;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}

export interface BlobPropertyBag {
  type?: string;
  endings?: 'transparent' | 'native';
}

export class Blob {
  #bytes: Uint8Array;
  #type: string;

  static {
    bytesOf = (blob) => blob.#bytes;
  }

  constructor(parts?: Iterable<unknown> | null, options?: BlobPropertyBag | null) {
    if (parts !== undefined && parts !== null && (typeof parts !== 'object' || typeof (parts as Iterable<unknown>)[Symbol.iterator] !== 'function')) {
      throw new TypeError("Failed to construct 'Blob': The provided value cannot be converted to a sequence.");
    }
    this.#bytes = concat(parts === undefined || parts === null ? [] : [...parts].map(partBytes));
    this.#type = normalizeType(options?.type);
  }

  get size(): number {
    return this.#bytes.length;
  }

  get type(): string {
    return this.#type;
  }

  /** Relative positions as in Array#slice; the new Blob has `contentType` (default ''). */
  slice(start?: number, end?: number, contentType?: string): Blob {
    const size = this.#bytes.length;
    const clamp = (value: number | undefined, fallback: number) => {
      if (value === undefined) return fallback;
      const n = Math.trunc(Number(value)) || 0;
      return n < 0 ? Math.max(size + n, 0) : Math.min(n, size);
    };
    const from = clamp(start, 0);
    const to = clamp(end, size);
    return new Blob([this.#bytes.subarray(from, Math.max(from, to))], { type: contentType });
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    return this.#bytes.slice().buffer;
  }

  async bytes(): Promise<Uint8Array> {
    return this.#bytes.slice();
  }

  async text(): Promise<string> {
    return utf8Decode(this.#bytes);
  }

  get [Symbol.toStringTag](): string {
    return 'Blob';
  }
}

export interface FilePropertyBag extends BlobPropertyBag {
  lastModified?: number;
}

export class File extends Blob {
  #name: string;
  #lastModified: number;

  constructor(parts: Iterable<unknown>, name: string, options?: FilePropertyBag | null) {
    if (arguments.length < 2) throw new TypeError("Failed to construct 'File': 2 arguments required.");
    super(parts, options);
    this.#name = String(name);
    const last = options?.lastModified;
    this.#lastModified = last === undefined ? Date.now() : Math.trunc(Number(last)) || 0;
  }

  get name(): string {
    return this.#name;
  }

  get lastModified(): number {
    return this.#lastModified;
  }

  get webkitRelativePath(): string {
    return '';
  }

  get [Symbol.toStringTag](): string {
    return 'File';
  }
}

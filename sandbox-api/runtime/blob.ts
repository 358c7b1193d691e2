// Blob and File (File API): immutable byte sequences with a type, and a File's name and
// lastModified. Pure: no bridge; `blobBytes` is the runtime's internal read access for bodies and
// multipart encoding, never reachable from a guest object. stream() takes ReadableStream from the
// lazily loaded streams module through setBlobStreams (install.ts), never from a global.
import { concatBytes } from './buffer-source.ts';
import { utf8Decode, utf8Encode } from './utf8.ts';
import { defineInterface, failed, requireArguments, toDOMString, toSequence, toUSVString } from './webidl.ts';

type ReadableStreamClass = new (source: object) => object;
type BlobPart = Uint8Array | ArrayBuffer | ArrayBufferView | Blob | string;

let bytesOf: (blob: Blob) => Uint8Array;
let isBlobObject: (value: unknown) => value is Blob;
let streamClass: (() => ReadableStreamClass) | null = null;

/** How many bytes each chunk of Blob#stream() carries. */
const STREAM_CHUNK_BYTES = 64 * 1024;

/** The bytes of a Blob (not a copy: callers must not write to them). */
export function blobBytes(blob: Blob): Uint8Array {
  return bytesOf(blob);
}

/** Whether `value` is a Blob made by this runtime (a brand check, not the prototype chain). */
export function isBlob(value: unknown): value is Blob {
  return isBlobObject(value);
}

/** Where Blob#stream() finds ReadableStream: the runtime's streams module, loaded on first use. */
export function setBlobStreams(readableStream: () => ReadableStreamClass): void {
  streamClass = readableStream;
}

/** The File API's type normalisation: printable ASCII lower-cased, anything else makes it ''. */
function normalizeType(text: string): string {
  return /^[\u0020-\u007e]*$/.test(text) ? text.toLowerCase() : '';
}

/** WebIDL's `(BufferSource or Blob or USVString)`: anything else is converted to a string now. */
function convertPart(part: unknown): BlobPart {
  if (part !== null && typeof part === 'object') {
    if (isBlobObject(part) || part instanceof ArrayBuffer || ArrayBuffer.isView(part)) return part;
  }
  return toUSVString(part);
}

function partBytes(part: BlobPart, nativeEndings: boolean): Uint8Array {
  if (typeof part === 'string') return utf8Encode(nativeEndings ? part.replace(/\r\n?/g, '\n') : part);
  if (part instanceof ArrayBuffer) return new Uint8Array(part.slice(0));
  if (ArrayBuffer.isView(part)) return new Uint8Array(part.buffer, part.byteOffset, part.byteLength).slice();
  return bytesOf(part);
}

export interface BlobPropertyBag {
  type?: string;
  endings?: 'transparent' | 'native';
}

/** A dictionary argument: undefined or null is empty, another non-object is a TypeError. */
function dictionary(value: unknown, what: string): Record<string, unknown> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' && typeof value !== 'function')
    throw new TypeError(`${what}: the options must be an object`);
  return value as Record<string, unknown>;
}

/** BlobPropertyBag, its members read in lexicographic order as WebIDL does. */
function blobOptions(value: unknown, what: string): { native: boolean; type: string } {
  const options = dictionary(value, what);
  const endings = options.endings === undefined ? 'transparent' : toDOMString(options.endings);
  if (endings !== 'transparent' && endings !== 'native')
    throw new TypeError(`${what}: endings must be "transparent" or "native"`);
  const type = options.type === undefined ? '' : toDOMString(options.type);
  return { native: endings === 'native', type };
}

/** The blob parts argument: an iterable object, each item converted as it is taken. */
function blobParts(value: unknown, what: string): BlobPart[] {
  if (value === undefined) return [];
  if (value === null || (typeof value !== 'object' && typeof value !== 'function'))
    throw new TypeError(`${what}: The provided value cannot be converted to a sequence.`);
  return toSequence(value, (value as Record<PropertyKey, unknown>)[Symbol.iterator], convertPart, what);
}

/** WebIDL's [Clamp] long long: NaN is 0, halves round to even. */
function clampInteger(value: unknown): number {
  const number = Number(value);
  if (Number.isNaN(number)) return 0;
  const clamped = Math.min(Math.max(number, -Number.MAX_SAFE_INTEGER), Number.MAX_SAFE_INTEGER);
  const floor = Math.floor(clamped);
  const rounded = clamped - floor > 0.5 || (clamped - floor === 0.5 && floor % 2 !== 0) ? floor + 1 : floor;
  return rounded === 0 ? 0 : rounded;
}

function blobStream(bytes: Uint8Array): object {
  if (streamClass === null) throw new TypeError('Blob.stream: streams are not available in this runtime');
  const ReadableStream = streamClass();
  let offset = 0;
  return new ReadableStream({
    type: 'bytes',
    pull(controller: { enqueue(chunk: Uint8Array): void; close(): void }) {
      if (offset < bytes.length) {
        const chunk = bytes.slice(offset, offset + STREAM_CHUNK_BYTES);
        offset += chunk.length;
        controller.enqueue(chunk);
      }
      if (offset >= bytes.length) controller.close();
    },
  });
}

// The classes are property values named as the standard spells them: the bundler renames bindings
// (and names a class that refers to itself `_Blob`), never property keys, and a class takes its
// name, and its name in stack traces, from the key.
export const Blob = {
  Blob: class {
    #bytes: Uint8Array;
    #type: string;

    static {
      bytesOf = (blob) => blob.#bytes;
      isBlobObject = (value): value is Blob => value !== null && typeof value === 'object' && #bytes in value;
    }

    constructor(parts: Iterable<unknown> | undefined = undefined, options: BlobPropertyBag | undefined = undefined) {
      const what = failed(new.target === File ? 'File' : 'Blob', 'constructor');
      const converted = blobParts(parts, what);
      const { native, type } = blobOptions(options, what);
      this.#bytes = concatBytes(converted.map((part) => partBytes(part, native)));
      this.#type = normalizeType(type);
    }

    get size(): number {
      return this.#bytes.length;
    }

    get type(): string {
      return this.#type;
    }

    /** Relative positions as in Array#slice; the new Blob has `contentType` (default ''). */
    slice(
      start: number | undefined = undefined,
      end: number | undefined = undefined,
      contentType: string | undefined = undefined,
    ): Blob {
      const size = this.#bytes.length;
      const position = (value: number | undefined, fallback: number) => {
        if (value === undefined) return fallback;
        const n = clampInteger(value);
        return n < 0 ? Math.max(size + n, 0) : Math.min(n, size);
      };
      const from = position(start, 0);
      const to = position(end, size);
      const type = contentType === undefined ? '' : toDOMString(contentType);
      return new Blob([this.#bytes.subarray(from, Math.max(from, to))], { type });
    }

    stream(): ReadableStream<Uint8Array> {
      return blobStream(this.#bytes) as ReadableStream<Uint8Array>;
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

    static {
      defineInterface(this.prototype, 'Blob');
    }
  },
}.Blob;
export type Blob = InstanceType<typeof Blob>;

export interface FilePropertyBag extends BlobPropertyBag {
  lastModified?: number;
}

/** WebIDL's `long long` (what lastModified is): NaN and infinities are 0, the rest truncated. */
function toLongLong(value: unknown): number {
  const number = Math.trunc(Number(value));
  return Number.isFinite(number) ? number + 0 : 0;
}

export const File = {
  File: class extends Blob {
    #name: string;
    #lastModified: number;

    constructor(parts: Iterable<unknown>, name: string, options: FilePropertyBag | undefined = undefined) {
      requireArguments(arguments.length, 2, 'File', 'constructor');
      super(parts, options);
      this.#name = toUSVString(name);
      const last = dictionary(options, failed('File', 'constructor')).lastModified;
      this.#lastModified = last === undefined ? Date.now() : toLongLong(last);
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

    static {
      defineInterface(this.prototype, 'File');
    }
  },
}.File;
export type File = InstanceType<typeof File>;

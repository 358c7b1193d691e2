// The Fetch "Body" mixin shared by Request and Response: bodies are whole byte arrays (there are
// no real ReadableStreams in the isolate: `body` is a minimal one-chunk reader), read at most once.
// Pure: no bridge.
import { Blob, blobBytes } from './blob.ts';
import { copyBufferSource } from './buffer-source.ts';
import { FormData, formDataEntries, formDataFrom } from './form-data.ts';
import type { Headers } from './headers.ts';
import { encodeMultipart, multipartBoundary, parseMultipart } from './multipart.ts';
import { parseUrlencoded, URLSearchParams } from './url-search-params.ts';
import { utf8Decode, utf8Encode } from './utf8.ts';

export interface BodyState {
  bytes: Uint8Array | null;
  used: boolean;
}

export interface ExtractedBody {
  bytes: Uint8Array | null;
  contentType: string | null;
}


let streamState: (value: unknown) => BodyState | null;
const INTERNAL = Symbol('internal');

/** A minimal stand-in for ReadableStream: one reader, one chunk with the whole body. */
export class BodyStream {
  #state: BodyState;

  static {
    streamState = (value) => (value !== null && typeof value === 'object' && #state in value ? value.#state : null);
  }

  constructor(token: symbol, state: BodyState) {
    if (token !== INTERNAL) throw new TypeError('Illegal constructor: streams are not supported in this runtime');
    this.#state = state;
  }

  get locked(): boolean {
    return this.#state.used;
  }

  getReader(): { read(): Promise<{ done: boolean; value?: Uint8Array }>; releaseLock(): void; cancel(): Promise<void>; closed: Promise<void> } {
    const state = this.#state;
    if (state.used) throw new TypeError('ReadableStream is locked or its body has already been read');
    state.used = true;
    let chunk: Uint8Array | null = state.bytes;
    return {
      read: async () => {
        if (chunk === null) return { done: true, value: undefined };
        const value = chunk.slice();
        chunk = null;
        return { done: false, value };
      },
      releaseLock: () => {},
      cancel: async () => {
        chunk = null;
      },
      closed: Promise.resolve(),
    };
  }

  async cancel(): Promise<void> {
    this.#state.used = true;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<Uint8Array> {
    const reader = this.getReader();
    for (let next = await reader.read(); !next.done; next = await reader.read()) yield next.value as Uint8Array;
  }
}

/** The Fetch "extract a body" for the BodyInit types this runtime supports. */
export function extractBody(body: unknown): ExtractedBody {
  if (body === null || body === undefined) return { bytes: null, contentType: null };
  if (typeof body === 'string') return { bytes: utf8Encode(body), contentType: 'text/plain;charset=UTF-8' };
  const bytes = copyBufferSource(body);
  if (bytes !== null) return { bytes, contentType: null };
  if (body instanceof URLSearchParams) {
    return { bytes: utf8Encode(body.toString()), contentType: 'application/x-www-form-urlencoded;charset=UTF-8' };
  }
  if (body instanceof Blob) return { bytes: blobBytes(body).slice(), contentType: body.type === '' ? null : body.type };
  if (body instanceof FormData) return encodeMultipart(formDataEntries(body));
  const state = streamState(body);
  if (state !== null) {
    if (state.used) throw new TypeError('Body stream is locked or has already been read');
    state.used = true;
    return { bytes: state.bytes, contentType: null };
  }
  // WebIDL: anything else converts to USVString (there are no ReadableStream objects here).
  return { bytes: utf8Encode(String(body)), contentType: 'text/plain;charset=UTF-8' };
}

let stateOf: (carrier: BodyCarrier) => BodyState;
let headersSetter: (carrier: BodyCarrier, headers: Headers) => void;

/** Internal read access for serialization and cloning. */
export function bodyStateOf(carrier: BodyCarrier): BodyState {
  return stateOf(carrier);
}

/** Request and Response hand over their header list, which blob() and formData() read the type from. */
export function bindBodyHeaders(carrier: BodyCarrier, headers: Headers): void {
  headersSetter(carrier, headers);
}

export class BodyCarrier {
  #state: BodyState;
  #stream: BodyStream | null = null;
  #headers: Headers | null = null;

  static {
    stateOf = (carrier) => carrier.#state;
    headersSetter = (carrier, headers) => {
      carrier.#headers = headers;
    };
  }

  constructor(bytes: Uint8Array | null) {
    this.#state = { bytes, used: false };
  }

  #consume(): Uint8Array {
    const state = this.#state;
    if (state.used) throw new TypeError('Body is unusable: Body has already been read');
    if (state.bytes === null) return new Uint8Array(0);
    state.used = true;
    return state.bytes;
  }

  get body(): BodyStream | null {
    if (this.#state.bytes === null) return null;
    this.#stream ??= new BodyStream(INTERNAL, this.#state);
    return this.#stream;
  }

  get bodyUsed(): boolean {
    return this.#state.used;
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    return this.#consume().slice().buffer;
  }

  async bytes(): Promise<Uint8Array> {
    return this.#consume().slice();
  }

  async text(): Promise<string> {
    return utf8Decode(this.#consume());
  }

  async json(): Promise<unknown> {
    return JSON.parse(utf8Decode(this.#consume()));
  }

  #contentType(): string {
    return this.#headers?.get('content-type') ?? '';
  }

  async blob(): Promise<Blob> {
    const type = this.#contentType();
    const bytes = this.#consume();
    return new Blob([bytes], { type });
  }

  /** multipart/form-data (strings and Files) or application/x-www-form-urlencoded; else a TypeError. */
  async formData(): Promise<FormData> {
    const type = this.#contentType();
    const boundary = multipartBoundary(type);
    const essence = type.split(';')[0].trim().toLowerCase();
    if (boundary === null && essence !== 'application/x-www-form-urlencoded') {
      const why = essence === 'multipart/form-data' ? 'its multipart/form-data type has no valid boundary' : `its Content-Type is "${type}", not multipart/form-data or application/x-www-form-urlencoded`;
      throw new TypeError(`Failed to parse body as FormData: ${why}`);
    }
    const bytes = this.#consume();
    return formDataFrom(boundary !== null ? parseMultipart(bytes, boundary) : parseUrlencoded(utf8Decode(bytes)));
  }
}

// The Fetch "Body" mixin shared by Request and Response. A body is bytes, a ReadableStream, or a
// body still at the host (an outbound fetch's response, read chunk by chunk on demand). Its stream
// (`body`) is made only when asked for: the streams module is loaded on first use (modules.ts), so
// code that only calls text() or json() never loads it. Never holds a bridge itself: the host
// reads come through bindBodies().
import { Blob, blobBytes } from './blob.ts';
import { concatBytes, copyBufferSource } from './buffer-source.ts';
import { FormData, formDataEntries, formDataFrom } from './form-data.ts';
import type { Headers } from './headers.ts';
import type { BodyStream, HostBodySource, StreamsExports } from './modules/streams.ts';
import { encodeMultipart, multipartBoundary, parseMultipart } from './multipart.ts';
import { parseUrlencodedBytes, URLSearchParams } from './url-search-params.ts';
import { utf8Decode, utf8Encode } from './utf8.ts';

export interface BodyState {
  /** The whole body, when it is known as bytes. */
  bytes: Uint8Array | null;
  /** A body still at the host, read on demand. */
  host: HostBodySource | null;
  /** The body's stream, once one exists (given to the constructor, or made when `body` was read). */
  stream: BodyStream | null;
  /** Read without a stream (text(), json(), …, or taken over by another Request). */
  used: boolean;
}

export interface ExtractedBody {
  bytes: Uint8Array | null;
  stream: BodyStream | null;
  contentType: string | null;
}

/** What bodies need of the runtime: the streams module (loaded, or only if loaded already). */
export interface BodyRuntime {
  streams(): StreamsExports;
  loadedStreams(): StreamsExports | null;
}

let runtime: BodyRuntime | null = null;

/** Called once by defineRuntime, before any guest code. */
export function bindBodies(value: BodyRuntime): void {
  runtime = value;
}

function streams(): StreamsExports {
  if (runtime === null) throw new Error('the sandbox runtime was used before it was bound');
  return runtime.streams();
}

/** Whether a value is a ReadableStream (false without loading the streams module: none exists then). */
export function isReadableStream(value: unknown): value is BodyStream {
  const loaded = runtime?.loadedStreams() ?? null;
  return loaded !== null && loaded.isReadableStream(value);
}

export const emptyBody = (): BodyState => ({ bytes: null, host: null, stream: null, used: false });

export const isNullBody = (state: BodyState): boolean =>
  state.bytes === null && state.host === null && state.stream === null;

/** The standard's "unusable": read already, or its stream locked or disturbed. */
export function isUnusable(state: BodyState): boolean {
  if (state.used) return true;
  const stream = state.stream;
  return stream !== null && (stream.locked || streams().isDisturbed(stream));
}

/** The body's stream, made now from its bytes or its host body if it has none yet; null for no body. */
export function streamOf(state: BodyState): BodyStream | null {
  if (state.stream !== null) return state.stream;
  if (state.bytes === null && state.host === null) return null;
  const module = streams();
  if (state.used) {
    // Read already through a fast path: its stream is the read one, locked and disturbed.
    state.stream = module.fromBytes(new Uint8Array(0));
    module.disturb(state.stream);
  } else state.stream = state.host !== null ? module.fromHost(state.host) : module.fromBytes(state.bytes as Uint8Array);
  return state.stream;
}

/** Reads every chunk of a host body (the fast path of text() and friends: no stream needed). */
async function readHost(source: HostBodySource): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  for (let chunk = await source.read(); chunk !== null; chunk = await source.read()) chunks.push(chunk);
  return concatBytes(chunks);
}

/**
 * The standard's "consume body": the whole body as bytes, marking it used. Rejects (TypeError)
 * when it is unusable. A null body is empty and stays unused.
 */
export async function consumeBody(state: BodyState): Promise<Uint8Array> {
  if (isUnusable(state)) throw new TypeError('Body is unusable: Body has already been read');
  if (state.stream !== null) return streams().readAll(state.stream);
  if (state.host !== null) {
    state.used = true;
    return readHost(state.host);
  }
  if (state.bytes === null) return new Uint8Array(0);
  state.used = true;
  return state.bytes;
}

/** The Fetch "extract a body" for every BodyInit. */
export function extractBody(body: unknown): ExtractedBody {
  if (body === null || body === undefined) return { bytes: null, stream: null, contentType: null };
  if (typeof body === 'string')
    return { bytes: utf8Encode(body), stream: null, contentType: 'text/plain;charset=UTF-8' };
  const bytes = copyBufferSource(body);
  if (bytes !== null) return { bytes, stream: null, contentType: null };
  if (body instanceof URLSearchParams) {
    return {
      bytes: utf8Encode(body.toString()),
      stream: null,
      contentType: 'application/x-www-form-urlencoded;charset=UTF-8',
    };
  }
  if (body instanceof Blob)
    return { bytes: blobBytes(body).slice(), stream: null, contentType: body.type === '' ? null : body.type };
  if (body instanceof FormData) return { ...encodeMultipart(formDataEntries(body)), stream: null };
  if (isReadableStream(body)) {
    if (body.locked || streams().isDisturbed(body))
      throw new TypeError('The body stream is locked or has already been read');
    return { bytes: null, stream: body, contentType: null };
  }
  // WebIDL: anything else converts to USVString.
  return { bytes: utf8Encode(String(body)), stream: null, contentType: 'text/plain;charset=UTF-8' };
}

/** The state a clone gets: a copy of the bytes, or one branch of the stream (the original keeps the other). */
export function cloneBody(state: BodyState): BodyState {
  if (isUnusable(state)) throw new TypeError('Body has already been read');
  if (state.bytes !== null && state.stream === null)
    return { bytes: state.bytes.slice(), host: null, stream: null, used: false };
  const stream = streamOf(state);
  if (stream === null) return emptyBody();
  const [mine, theirs] = stream.tee();
  state.stream = mine;
  return { bytes: null, host: null, stream: theirs, used: false };
}

/** Moves a body into a new Request (the standard's transfer): the old one is left used. */
export function takeBody(state: BodyState): BodyState {
  if (isUnusable(state))
    throw new TypeError('Cannot construct a Request with a Request whose body has already been read');
  const taken: BodyState = { bytes: state.bytes, host: state.host, stream: state.stream, used: false };
  state.used = true;
  return taken;
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
  #headers: Headers | null = null;

  static {
    stateOf = (carrier) => carrier.#state;
    headersSetter = (carrier, headers) => {
      carrier.#headers = headers;
    };
  }

  constructor(state: BodyState) {
    this.#state = state;
  }

  get body(): BodyStream | null {
    return streamOf(this.#state);
  }

  get bodyUsed(): boolean {
    const state = this.#state;
    if (state.used) return true;
    return state.stream !== null && streams().isDisturbed(state.stream);
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    // Always a new buffer: the bytes may be a chunk the guest still holds.
    return (await consumeBody(this.#state)).slice().buffer;
  }

  async bytes(): Promise<Uint8Array> {
    return (await consumeBody(this.#state)).slice();
  }

  async text(): Promise<string> {
    return utf8Decode(await consumeBody(this.#state));
  }

  async json(): Promise<unknown> {
    return JSON.parse(utf8Decode(await consumeBody(this.#state)));
  }

  #contentType(): string {
    return this.#headers?.get('content-type') ?? '';
  }

  async blob(): Promise<Blob> {
    const type = this.#contentType();
    const bytes = await consumeBody(this.#state);
    return new Blob([bytes], { type });
  }

  /** multipart/form-data (strings and Files) or application/x-www-form-urlencoded; else a TypeError. */
  async formData(): Promise<FormData> {
    const type = this.#contentType();
    // The body is read first (as the standard's "consume body" does): a failing stream is its error.
    const bytes = await consumeBody(this.#state);
    const boundary = multipartBoundary(type);
    const essence = type.split(';')[0].trim().toLowerCase();
    if (boundary === null && essence !== 'application/x-www-form-urlencoded') {
      const why =
        essence === 'multipart/form-data'
          ? 'its multipart/form-data type has no valid boundary'
          : `its Content-Type is "${type}", not multipart/form-data or application/x-www-form-urlencoded`;
      throw new TypeError(`Failed to parse body as FormData: ${why}`);
    }
    return formDataFrom(boundary !== null ? parseMultipart(bytes, boundary) : parseUrlencodedBytes(bytes));
  }
}

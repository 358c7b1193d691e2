// The runtime's streams module, loaded into an isolate only when it first needs a stream
// (modules.ts): the WHATWG Streams classes from web-streams-polyfill (derived from the standard's
// reference implementation), and the helpers the runtime's bodies use. Never in the snapshot; the
// helpers are the runtime's only: no global names them.
import {
  ByteLengthQueuingStrategy,
  CountQueuingStrategy,
  ReadableByteStreamController,
  ReadableStream,
  ReadableStreamBYOBReader,
  ReadableStreamBYOBRequest,
  ReadableStreamDefaultController,
  ReadableStreamDefaultReader,
  TransformStream,
  TransformStreamDefaultController,
  WritableStream,
  WritableStreamDefaultController,
  WritableStreamDefaultWriter,
} from 'web-streams-polyfill';
import { concatBytes } from '../buffer-source.ts';

/** A body's stream, as the polyfill types it. */
export type BodyStream = ReadableStream<Uint8Array>;

/** A body still at the host (an outbound fetch's response), read chunk by chunk on demand. */
export interface HostBodySource {
  /** The host's id of the body (the fetch it answers). */
  readonly id: number;
  /** The next chunk, or null at the end; rejects with the reason the body failed. */
  read(): Promise<Uint8Array | null>;
  /** The reader is gone: the host may drop what it holds (close the connection). */
  cancel(): void;
}

// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface StreamsDeps {}

const chunkError = () => new TypeError('a body stream chunk must be a Uint8Array');

export function createStreams(_deps: StreamsDeps) {
  /** Streams this module made over a host body: the body can skip the isolate while nobody read them. */
  const hostBodies = new WeakMap<object, HostBodySource>();

  const isReadableStream = (value: unknown): value is ReadableStream => value instanceof ReadableStream;

  /** The standard's "disturbed": a read or a cancel happened (the polyfill keeps it as a field). */
  const isDisturbed = (stream: ReadableStream): boolean =>
    (stream as unknown as { _disturbed?: unknown })._disturbed === true;

  /** A byte stream of one chunk: the body's bytes (a copy: enqueuing transfers its buffer). */
  function fromBytes(bytes: Uint8Array): ReadableStream<Uint8Array> {
    return new ReadableStream({
      type: 'bytes',
      start(controller) {
        if (bytes.byteLength > 0) controller.enqueue(bytes.slice());
        controller.close();
      },
    });
  }

  /** A byte stream that pulls from a host body only when read (no read-ahead). */
  function fromHost(source: HostBodySource): ReadableStream<Uint8Array> {
    const stream = new ReadableStream({
      type: 'bytes',
      async pull(controller) {
        const chunk = await source.read();
        if (chunk === null) controller.close();
        else if (chunk.byteLength > 0) controller.enqueue(chunk);
      },
      cancel() {
        source.cancel();
      },
    });
    hostBodies.set(stream, source);
    return stream;
  }

  /**
   * The host body behind a stream nobody has touched (not locked, not disturbed), taken for the
   * host to send on itself: the stream is locked for good. Null for any other stream.
   */
  function takeHostBody(stream: ReadableStream): HostBodySource | null {
    const source = hostBodies.get(stream);
    if (source === undefined || stream.locked || isDisturbed(stream)) return null;
    stream.getReader();
    hostBodies.delete(stream);
    return source;
  }

  /** Marks a stream read (locked and disturbed), as a body consumed without it is. */
  function disturb(stream: ReadableStream): void {
    void stream
      .getReader()
      .read()
      .catch(() => undefined);
  }

  /** Every chunk of a stream as one array; a chunk that is not a Uint8Array fails it (TypeError). */
  async function readAll(stream: ReadableStream): Promise<Uint8Array> {
    const reader = stream.getReader();
    const chunks: Uint8Array[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!(value instanceof Uint8Array)) {
        const error = chunkError();
        await reader.cancel(error).catch(() => undefined);
        throw error;
      }
      chunks.push(value);
    }
    return concatBytes(chunks);
  }

  /** A reader handing out Uint8Array chunks one at a time (null at the end), for a body sent on. */
  function chunkReader(stream: ReadableStream): {
    next(): Promise<Uint8Array | null>;
    cancel(reason: unknown): Promise<void>;
  } {
    const reader = stream.getReader();
    return {
      async next() {
        const { done, value } = await reader.read();
        if (done) return null;
        if (!(value instanceof Uint8Array)) {
          const error = chunkError();
          await reader.cancel(error).catch(() => undefined);
          throw error;
        }
        return value;
      },
      cancel: (reason) => reader.cancel(reason).catch(() => undefined),
    };
  }

  return {
    classes: {
      ReadableStream,
      ReadableStreamDefaultReader,
      ReadableStreamBYOBReader,
      ReadableStreamBYOBRequest,
      ReadableStreamDefaultController,
      ReadableByteStreamController,
      WritableStream,
      WritableStreamDefaultWriter,
      WritableStreamDefaultController,
      TransformStream,
      TransformStreamDefaultController,
      ByteLengthQueuingStrategy,
      CountQueuingStrategy,
    },
    isReadableStream,
    isDisturbed,
    fromBytes,
    fromHost,
    takeHostBody,
    disturb,
    readAll,
    chunkReader,
  };
}

export type StreamsExports = ReturnType<typeof createStreams>;

export default createStreams;

// The runtime's streams module, loaded into an isolate only when it first needs a stream
// (modules.ts): the WHATWG Streams classes from web-streams-polyfill (derived from the standard's
// reference implementation), and the helpers the runtime's bodies use. Never in the snapshot.
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

// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface StreamsDeps {}

export function createStreams(_deps: StreamsDeps) {
  return {
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
  };
}

export type StreamsExports = ReturnType<typeof createStreams>;

export default createStreams;

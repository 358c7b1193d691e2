// The runtime's encoding streams module, loaded into an isolate the first time a guest touches
// TextEncoderStream or TextDecoderStream (modules.ts): the Encoding standard's stream classes, each
// a TransformStream of the streams module around the runtime's own TextEncoder / TextDecoder.
// It decodes and encodes nothing itself and holds nothing beyond each stream's own state.

export interface EncodingStreamsDeps {
  TransformStream: typeof globalThis.TransformStream;
}

/** The UTF-8 bytes of U+FFFD: what a high surrogate left at the end of the last chunk becomes. */
const REPLACEMENT_BYTES = [0xef, 0xbf, 0xbd];

export function createEncodingStreams(deps: EncodingStreamsDeps) {
  const Transform = deps.TransformStream;

  class TextEncoderStream {
    readonly #transform: TransformStream<string, Uint8Array>;

    constructor() {
      const encoder = new TextEncoder();
      // A high surrogate ending one chunk may pair with a low surrogate starting the next.
      let pending = '';
      this.#transform = new Transform({
        transform(chunk: unknown, controller) {
          let text = pending + `${chunk as string}`; // ToString, as WebIDL converts: a Symbol throws
          pending = '';
          const last = text.charCodeAt(text.length - 1);
          if (last >= 0xd800 && last <= 0xdbff) {
            pending = text.slice(-1);
            text = text.slice(0, -1);
          }
          if (text !== '') controller.enqueue(encoder.encode(text));
        },
        flush(controller) {
          if (pending !== '') controller.enqueue(new Uint8Array(REPLACEMENT_BYTES));
        },
      });
    }

    get encoding(): string {
      return 'utf-8';
    }

    get readable(): ReadableStream<Uint8Array> {
      return this.#transform.readable;
    }

    get writable(): WritableStream<string> {
      return this.#transform.writable;
    }

    get [Symbol.toStringTag](): string {
      return 'TextEncoderStream';
    }
  }

  class TextDecoderStream {
    readonly #decoder: TextDecoder;
    readonly #transform: TransformStream<BufferSource, string>;

    constructor(label: unknown = 'utf-8', options: unknown = undefined) {
      const decoder = new TextDecoder(label as string, options as TextDecoderOptions);
      this.#decoder = decoder;
      this.#transform = new Transform({
        transform(chunk: unknown, controller) {
          // decode() reads a missing input as empty; a stream's chunk must be a BufferSource.
          if (chunk === undefined)
            throw new TypeError('TextDecoderStream: a chunk must be an ArrayBuffer or ArrayBufferView');
          const text = decoder.decode(chunk as BufferSource, { stream: true });
          if (text !== '') controller.enqueue(text);
        },
        flush(controller) {
          const text = decoder.decode();
          if (text !== '') controller.enqueue(text);
        },
      });
    }

    get encoding(): string {
      return this.#decoder.encoding;
    }

    get fatal(): boolean {
      return this.#decoder.fatal;
    }

    get ignoreBOM(): boolean {
      return this.#decoder.ignoreBOM;
    }

    get readable(): ReadableStream<string> {
      return this.#transform.readable;
    }

    get writable(): WritableStream<BufferSource> {
      return this.#transform.writable;
    }

    get [Symbol.toStringTag](): string {
      return 'TextDecoderStream';
    }
  }

  return { TextEncoderStream, TextDecoderStream };
}

export type EncodingStreamsExports = ReturnType<typeof createEncodingStreams>;

export default createEncodingStreams;

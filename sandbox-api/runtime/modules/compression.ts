// The runtime's compression module (loaded on first use of CompressionStream or DecompressionStream):
// the Compression standard's two classes, as TransformStreams whose work is the host's zlib (the
// compressionOpen/Write/Close primitives). Never compresses anything itself.
import type { BridgeResult, CompressionFormat } from '../contract.ts';
import type { StreamsExports } from './streams.ts';

export interface CompressionDeps {
  TransformStream: StreamsExports['classes']['TransformStream'];
  open(format: CompressionFormat, decompress: boolean): BridgeResult<number>;
  write(
    id: number,
    input: Uint8Array | null,
    finish: boolean,
  ): Promise<BridgeResult<{ output: Uint8Array; more: boolean }>>;
  close(id: number): void;
}

const FORMATS: readonly string[] = ['deflate', 'deflate-raw', 'gzip'];
/** The host takes at most this much input per call (host/bridge/compression.ts). */
const MAX_INPUT_PER_CALL = 1024 * 1024;

/** A BufferSource's bytes (a view on them; the host copies what it is given), else a TypeError. */
function bytesOf(chunk: unknown): Uint8Array {
  if (chunk instanceof ArrayBuffer) return new Uint8Array(chunk);
  if (ArrayBuffer.isView(chunk)) return new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  throw new TypeError('The provided value is not of type (ArrayBuffer or ArrayBufferView)');
}

function formatOf(format: unknown, what: string): CompressionFormat {
  const name = String(format);
  if (!FORMATS.includes(name))
    throw new TypeError(`Failed to construct '${what}': Unsupported compression format: '${name}'`);
  return name as CompressionFormat;
}

export function createCompression(deps: CompressionDeps) {
  const { TransformStream } = deps;

  function transformer(format: CompressionFormat, decompress: boolean) {
    const opened = deps.open(format, decompress);
    if (!opened.ok) throw new TypeError(opened.message);
    const id = opened.value;
    /** One step through the host, and the steps after it while more output is waiting. */
    async function run(
      controller: { enqueue(chunk: Uint8Array): void },
      input: Uint8Array | null,
      finish: boolean,
    ): Promise<void> {
      // Copied here: the host must see the bytes as they were when written, whatever the guest does next.
      let next: Uint8Array | null = input === null ? null : input.slice();
      for (;;) {
        const result = await deps.write(id, next, finish);
        if (!result.ok) throw new TypeError(result.message);
        if (result.value.output.byteLength > 0) controller.enqueue(result.value.output);
        if (!result.value.more) return;
        next = new Uint8Array(0);
      }
    }
    return {
      async transform(chunk: unknown, controller: { enqueue(chunk: Uint8Array): void }) {
        const bytes = bytesOf(chunk);
        for (let offset = 0; offset < bytes.byteLength; offset += MAX_INPUT_PER_CALL) {
          await run(controller, bytes.subarray(offset, offset + MAX_INPUT_PER_CALL), false);
        }
      },
      flush: (controller: { enqueue(chunk: Uint8Array): void }) => run(controller, null, true),
      cancel() {
        deps.close(id);
      },
    };
  }

  class CompressionStream {
    #stream: InstanceType<typeof TransformStream>;

    constructor(format: unknown) {
      this.#stream = new TransformStream(transformer(formatOf(format, 'CompressionStream'), false));
    }

    get readable() {
      return this.#stream.readable;
    }

    get writable() {
      return this.#stream.writable;
    }

    get [Symbol.toStringTag](): string {
      return 'CompressionStream';
    }
  }

  class DecompressionStream {
    #stream: InstanceType<typeof TransformStream>;

    constructor(format: unknown) {
      this.#stream = new TransformStream(transformer(formatOf(format, 'DecompressionStream'), true));
    }

    get readable() {
      return this.#stream.readable;
    }

    get writable() {
      return this.#stream.writable;
    }

    get [Symbol.toStringTag](): string {
      return 'DecompressionStream';
    }
  }
  return { CompressionStream, DecompressionStream };
}

export type CompressionExports = ReturnType<typeof createCompression>;

export default createCompression;

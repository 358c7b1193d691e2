// The host side of the runtime's CompressionStream and DecompressionStream: Node's zlib, one set
// per realm holding the streams its guest has open, bounded in number and in what each hands back
// per call, so a small compressed input cannot make the host hold a large output (a zip bomb is
// read out a slice at a time, as the guest's stream pulls it). Only copies and data cross back.

import zlib from 'node:zlib';
import type { BridgeResult, CompressionFormat } from '../../sandbox-api/runtime/contract.ts';
import { isOwnBytes } from './own-bytes.ts';

/** Streams one realm may hold open; opening another closes its least recently used one. */
export const MAX_OPEN_COMPRESSIONS = 8;
/** Most output bytes one call hands back: more waits in zlib until the guest asks again. */
export const MAX_OUTPUT_PER_CALL = 256 * 1024;
/** Most input bytes one call may carry (the runtime splits larger chunks). */
export const MAX_INPUT_PER_CALL = 1024 * 1024;

const FORMATS: ReadonlySet<unknown> = new Set<CompressionFormat>(['gzip', 'deflate', 'deflate-raw']);

export interface CompressionOutput {
  /** What came out of this call. */
  output: Uint8Array;
  /** More output is waiting: call again (with an empty chunk) before writing more or ending. */
  more: boolean;
}

type Result = BridgeResult<CompressionOutput>;

function create(
  format: CompressionFormat,
  decompress: boolean,
): zlib.Gzip | zlib.Gunzip | zlib.Deflate | zlib.Inflate | zlib.DeflateRaw | zlib.InflateRaw {
  if (format === 'gzip') return decompress ? zlib.createGunzip() : zlib.createGzip();
  if (format === 'deflate') return decompress ? zlib.createInflate() : zlib.createDeflate();
  return decompress ? zlib.createInflateRaw() : zlib.createDeflateRaw();
}

/** One open (de)compressor: its output collected as it comes, paused once a call's share is waiting. */
class Codec {
  private readonly stream: ReturnType<typeof create>;
  private readonly chunks: Buffer[] = [];
  private size = 0;
  /** Input written whose consumption zlib has not confirmed yet. */
  private writing = false;
  private finishing = false;
  private ended = false;
  private failure: string | null = null;
  private waiter: (() => void) | null = null;

  constructor(format: CompressionFormat, decompress: boolean) {
    this.stream = create(format, decompress);
    this.stream.on('data', (chunk: Buffer) => {
      this.chunks.push(chunk);
      this.size += chunk.length;
      if (this.size >= MAX_OUTPUT_PER_CALL) this.stream.pause();
      this.wake();
    });
    this.stream.on('end', () => {
      this.ended = true;
      this.wake();
    });
    this.stream.on('error', (error: Error & { code?: string }) => {
      this.failure = decompress
        ? `the compressed data is not valid ${format} (${error.code ?? 'invalid data'})`
        : 'compression failed';
      this.wake();
    });
  }

  /**
   * Feeds `input` (or ends the input, `finish`) and hands back what came out, at most a call's
   * share. Output still waiting from an earlier call is handed out first, before any new input.
   */
  async step(input: Uint8Array | null, finish: boolean): Promise<Result> {
    if (this.size === 0 && this.failure === null) {
      if (input !== null && input.byteLength > 0 && !this.finishing) {
        this.writing = true;
        this.stream.write(input, () => {
          this.writing = false;
          this.wake();
        });
      }
      if (finish && !this.finishing) {
        this.finishing = true;
        this.stream.end();
      }
      // Until what was asked is done: the input consumed (and the stream over, when finishing),
      // a call's share of output waiting, or a failure.
      while (
        this.failure === null &&
        this.size < MAX_OUTPUT_PER_CALL &&
        (this.writing || (this.finishing && !this.ended))
      ) {
        await new Promise<void>((resolve) => (this.waiter = resolve));
      }
    }
    if (this.failure !== null) return { ok: false, code: 'TypeError', message: this.failure };
    return { ok: true, value: this.take() };
  }

  close(): void {
    this.stream.destroy();
    this.chunks.length = 0;
    this.size = 0;
  }

  private take(): CompressionOutput {
    const all = Buffer.concat(this.chunks, this.size);
    const output = all.subarray(0, MAX_OUTPUT_PER_CALL);
    this.chunks.length = 0;
    this.size = 0;
    if (all.length > MAX_OUTPUT_PER_CALL) {
      this.chunks.push(all.subarray(MAX_OUTPUT_PER_CALL));
      this.size = all.length - MAX_OUTPUT_PER_CALL;
    }
    if (this.size < MAX_OUTPUT_PER_CALL) this.stream.resume();
    const more = this.size > 0 || this.writing || (this.finishing && !this.ended);
    // A copy: a Buffer may share Node's pool with unrelated bytes, which must never cross.
    return { output: new Uint8Array(output), more };
  }

  private wake(): void {
    const waiter = this.waiter;
    this.waiter = null;
    waiter?.();
  }
}

export interface CompressionTable {
  /** Opens a stream: its number, or a failure for a format the standard does not name. */
  open(format: unknown, decompress: unknown): BridgeResult<number>;
  /** One step of a stream (see Codec.step); `finish` ends its input. */
  write(id: unknown, input: unknown, finish: unknown): Promise<Result>;
  /** Closes a stream (its readable was cancelled, or it errored). */
  close(id: unknown): void;
  /** Closes every stream: the integration's work is over, or its isolate is gone. */
  closeAll(): void;
}

/** The realm's compression streams (BridgePrimitives.compressionOpen/Write/Close). */
export function createCompressionTable(): CompressionTable {
  const open = new Map<number, Codec>();
  let newest = 0;
  return {
    open(format, decompress) {
      if (!FORMATS.has(format) || typeof decompress !== 'boolean')
        return { ok: false, code: 'TypeError', message: 'unsupported compression format' };
      if (open.size >= MAX_OPEN_COMPRESSIONS) {
        const [oldest, codec] = open.entries().next().value!;
        codec.close();
        open.delete(oldest);
      }
      const id = ++newest;
      open.set(id, new Codec(format as CompressionFormat, decompress));
      return { ok: true, value: id };
    },
    async write(id, input, finish) {
      const codec = typeof id === 'number' ? open.get(id) : undefined;
      if (codec === undefined)
        return {
          ok: false,
          code: 'TypeError',
          message: 'this compression stream was closed (too many were open at once, or its work ended)',
        };
      if ((input !== null && !isOwnBytes(input)) || typeof finish !== 'boolean')
        return { ok: false, code: 'TypeError', message: 'malformed compression input' };
      if (input !== null && input.byteLength > MAX_INPUT_PER_CALL)
        return { ok: false, code: 'TypeError', message: `more than ${MAX_INPUT_PER_CALL} bytes in one call` };
      // Most recently used last: the one a full table closes first is the one touched longest ago.
      open.delete(id as number);
      open.set(id as number, codec);
      const result = await codec.step(input as Uint8Array | null, finish as boolean);
      if (!result.ok || (finish && !result.value.more)) {
        codec.close();
        open.delete(id as number);
      }
      return result;
    },
    close(id) {
      if (typeof id !== 'number') return;
      open.get(id)?.close();
      open.delete(id);
    },
    closeAll() {
      for (const codec of open.values()) codec.close();
      open.clear();
    },
  };
}

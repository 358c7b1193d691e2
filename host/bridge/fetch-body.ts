// Host side of an outbound fetch's response body: buffers what the connection delivers up to a high
// water mark (then pauses it, so a slow reader holds the peer back), hands it out in reads, counts
// every byte against the body limit, and fails a body that stalls. Never throws from read():
// failures are values; cancel() closes the connection at once.

import type { Readable } from 'node:stream';
import { concatBytes } from '../common/concat-bytes.ts';

/** Bytes buffered before the connection is paused until the reader catches up. */
const HIGH_WATER_BYTES = 256 * 1024;
/** Most bytes one read hands out (what one crossing into an isolate carries). */
const MAX_READ_BYTES = 256 * 1024;

export type BodyRead = { ok: true; value: Uint8Array | null } | { ok: false; message: string };

export interface FetchBodyOptions {
  /** The whole body may not be longer. */
  maxBytes: number;
  /** A body that delivers nothing for this long fails (its connection is closed). */
  idleTimeoutMs: number;
  /** Closes what carries the body (the request and its socket). */
  destroy(): void;
}

export class FetchBody {
  private readonly chunks: Buffer[] = [];
  private buffered = 0;
  private total = 0;
  private ended = false;
  private failure: string | null = null;
  private waiter: (() => void) | null = null;
  private idle: NodeJS.Timeout | null = null;
  private readonly stream: Readable;
  private readonly options: FetchBodyOptions;

  constructor(stream: Readable, options: FetchBodyOptions) {
    this.stream = stream;
    this.options = options;
    stream.on('data', (chunk: Buffer) => this.onData(chunk));
    stream.on('end', () => this.settle(() => (this.ended = true)));
    stream.on('error', (error: Error) => this.fail(describe(error)));
    stream.on('close', () => {
      if (!this.ended) this.fail('the connection closed before the response ended');
    });
    this.armIdle();
  }

  /** Whether the whole body has arrived (nothing more will come, all of it is buffered). */
  get complete(): boolean {
    return this.ended && this.failure === null;
  }

  /** What failed the body, if it failed. */
  get failed(): string | null {
    return this.failure;
  }

  /**
   * The next bytes (whatever is buffered, up to MAX_READ_BYTES), null at the end, or why it failed.
   * `forIsolate` (the default): a fresh copy, since they cross into an isolate; otherwise (the host
   * sends them on itself) what the connection delivered, as it is.
   */
  async read(forIsolate = true): Promise<BodyRead> {
    while (this.chunks.length === 0 && !this.ended && this.failure === null) {
      await new Promise<void>((resolve) => (this.waiter = resolve));
    }
    if (this.chunks.length > 0) return { ok: true, value: forIsolate ? this.take() : this.takeFirst() };
    if (this.failure !== null) return { ok: false, message: this.failure };
    return { ok: true, value: null };
  }

  /** Every byte, once the body ended (for a body that ended before anyone read it). */
  takeAll(): Uint8Array {
    const all = concatBytes(this.chunks);
    this.chunks.length = 0;
    this.buffered = 0;
    return all;
  }

  /** The reader is gone: closes the connection and drops what is buffered. */
  cancel(): void {
    if (this.ended && this.chunks.length === 0) return;
    this.fail('the response body was cancelled');
  }

  /** The first buffered chunk as it arrived (no copy). */
  private takeFirst(): Uint8Array {
    const first = this.chunks.shift() as Buffer;
    this.buffered -= first.length;
    this.resumeIfDrained();
    return first;
  }

  private take(): Uint8Array {
    let out: Buffer;
    const first = this.chunks[0];
    if (first.length >= MAX_READ_BYTES || this.chunks.length === 1) {
      out = first.length > MAX_READ_BYTES ? first.subarray(0, MAX_READ_BYTES) : first;
      if (out === first) this.chunks.shift();
      else this.chunks[0] = first.subarray(MAX_READ_BYTES);
    } else {
      const parts: Buffer[] = [];
      let size = 0;
      while (this.chunks.length > 0 && size + this.chunks[0].length <= MAX_READ_BYTES) {
        const chunk = this.chunks.shift() as Buffer;
        parts.push(chunk);
        size += chunk.length;
      }
      out = Buffer.concat(parts, size);
    }
    this.buffered -= out.length;
    this.resumeIfDrained();
    // A copy: a Buffer may share Node's pool with unrelated bytes, which must never cross.
    return new Uint8Array(out);
  }

  private onData(chunk: Buffer): void {
    if (this.failure !== null) return;
    this.total += chunk.length;
    if (this.total > this.options.maxBytes) {
      this.fail(`response body exceeds ${this.options.maxBytes} bytes`);
      return;
    }
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    if (this.buffered >= HIGH_WATER_BYTES) {
      // Paused by its reader, not stalled by its peer: the idle clock waits until it resumes.
      this.stream.pause();
      this.stopIdle();
    } else this.armIdle();
    this.wake();
  }

  private resumeIfDrained(): void {
    if (this.buffered >= HIGH_WATER_BYTES || !this.stream.isPaused() || this.ended || this.failure !== null) return;
    this.stream.resume();
    this.armIdle();
  }

  private stopIdle(): void {
    if (this.idle !== null) clearTimeout(this.idle);
    this.idle = null;
  }

  private armIdle(): void {
    if (this.idle !== null) clearTimeout(this.idle);
    this.idle = setTimeout(
      () => this.fail(`the response body stalled: nothing arrived for ${this.options.idleTimeoutMs} ms`),
      this.options.idleTimeoutMs,
    );
    this.idle.unref();
  }

  private settle(change: () => void): void {
    change();
    this.stopIdle();
    this.wake();
  }

  private fail(message: string): void {
    if (this.failure !== null || (this.ended && this.chunks.length === 0)) return;
    this.settle(() => {
      this.failure = message;
      this.chunks.length = 0;
      this.buffered = 0;
    });
    this.stream.destroy();
    this.options.destroy();
  }

  private wake(): void {
    const waiter = this.waiter;
    this.waiter = null;
    waiter?.();
  }
}

function describe(error: Error): string {
  const code = (error as { code?: string }).code;
  // Only the network-level reason: never a host stack or file path.
  return code ? `${code}: ${error.message.split('\n')[0]}` : error.message.split('\n')[0];
}

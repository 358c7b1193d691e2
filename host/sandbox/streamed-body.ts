// A response body arriving from a sandbox worker after its answer (the worker's `body` messages),
// as the host's HTTP side reads it: an async iterable of chunks. Credit-based flow control: the
// worker sends at most WINDOW_BYTES ahead of what was read here (creditOf), and each chunk read is acked, so a
// slow client holds the integration back instead of filling the host's memory. Never throws from
// its feeding side; a failure ends the iteration with an error.

import { concatBytes } from '../common/concat-bytes.ts';

/** Bytes a worker may send ahead of what the host's reader took. */
export const WINDOW_BYTES = 1024 * 1024;
/**
 * What a chunk costs of the credit at the least: a frame the host holds costs memory beyond its
 * bytes, so a stream of tiny chunks may not put a million of them in the window.
 */
const MIN_CHUNK_CREDIT = 4 * 1024;

/** The credit a chunk takes, the same on both sides of the channel. */
export const creditOf = (chunk: Uint8Array): number => Math.max(chunk.byteLength, MIN_CHUNK_CREDIT);

export interface StreamedBodyLink {
  /** Tells the worker `bytes` were read (it may send that much more). */
  ack(bytes: number): void;
  /** Tells the worker the host will read no more (its client left): it stops the source. */
  cancel(): void;
}

export class StreamedBody implements AsyncIterable<Uint8Array> {
  private readonly chunks: Uint8Array[] = [];
  private ended = false;
  private failure: Error | null = null;
  private waiter: (() => void) | null = null;
  private iterated = false;
  private readonly link: StreamedBodyLink;

  constructor(link: StreamedBodyLink) {
    this.link = link;
  }

  /** Whether the body is over (ended, failed or cancelled): its messages are not expected any more. */
  get settled(): boolean {
    return this.ended || this.failure !== null;
  }

  /** A chunk from the worker. */
  push(chunk: Uint8Array): void {
    if (this.settled) return;
    this.chunks.push(chunk);
    this.wake();
  }

  /** The worker says the body ended, or why it failed. */
  end(error?: string): void {
    if (this.settled) return;
    if (error === undefined) this.ended = true;
    else this.failure = new Error(error);
    this.wake();
  }

  /** The host reads no more (its client left, or it answered without the body): the worker stops. */
  cancel(): void {
    if (this.settled) return;
    this.failure = new Error('the response body was cancelled');
    this.chunks.length = 0;
    this.link.cancel();
    this.wake();
  }

  /** Every chunk, then the end (or the failure, thrown); read once. */
  async *[Symbol.asyncIterator](): AsyncGenerator<Uint8Array> {
    if (this.iterated) throw new Error('a streamed body is read once');
    this.iterated = true;
    try {
      for (;;) {
        const chunk = this.chunks.shift();
        if (chunk !== undefined) {
          this.link.ack(creditOf(chunk));
          yield chunk;
          continue;
        }
        if (this.failure !== null) throw this.failure;
        if (this.ended) return;
        await new Promise<void>((resolve) => (this.waiter = resolve));
      }
    } finally {
      // A reader that stopped early (its client left, an error writing) stops the worker too.
      if (!this.ended) this.cancel();
    }
  }

  /** The whole body, at most `maxBytes` (for the callers that answer with bytes, not a stream). */
  async collect(maxBytes: number): Promise<Uint8Array> {
    const parts: Uint8Array[] = [];
    let length = 0;
    for await (const chunk of this) {
      length += chunk.byteLength;
      if (length > maxBytes) throw new Error(`the response body exceeds ${maxBytes} bytes`);
      parts.push(chunk);
    }
    return concatBytes(parts);
  }

  private wake(): void {
    const waiter = this.waiter;
    this.waiter = null;
    waiter?.();
  }
}

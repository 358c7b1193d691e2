// A response body that follows its answer (StreamedBody), on the worker's side: pulled chunk by
// chunk as the host sends it on, every byte counted against the response limit, bounded in time,
// and ended exactly once however it ends (its end, a failure, a cancel, the deadline); and its two
// sources: the isolate's stream (RuntimeApi.pullBody), or a fetch's body the host sends on.

import type ivm from 'isolated-vm';
import type { FetchBody } from '../bridge/fetch-body.ts';
import { isOwnBytes } from '../bridge/own-bytes.ts';

export interface ResponseBody {
  /** The next chunk, or null at the end; rejects with an Error whose message is safe to log. */
  next(): Promise<Uint8Array | null>;
  /** The host will not take more (its client left, it answered otherwise): stops the source. */
  cancel(reason: string): void;
}

export interface ResponseBodyOptions {
  /** The source's next chunk (null at its end); may reject. */
  pull(): Promise<Uint8Array | null>;
  /** Stops the source. */
  stop(reason: string): void;
  maxBytes: number;
  /** From the answer: the whole body must be sent by then. */
  deadlineMs: number;
  /** The deadline passed with the body still going (the source is stopped first). */
  onDeadline(): void;
  /** Called once, when the body ended in any way. */
  done(): void;
}

export function responseBody(options: ResponseBodyOptions): ResponseBody {
  let sent = 0;
  let over: string | null = null;
  const timer = setTimeout(() => {
    if (over !== null) return;
    end(`the response body was still being produced after ${options.deadlineMs} ms`);
    options.stop('the response body took too long');
    options.onDeadline();
  }, options.deadlineMs);
  function refuse(why: string, reason: string): never {
    end(why);
    options.stop(reason);
    throw new Error(why);
  }
  function end(why: string): void {
    if (over !== null) return;
    over = why;
    clearTimeout(timer);
    options.done();
  }
  return {
    async next() {
      if (over !== null) throw new Error(over);
      let chunk: Uint8Array | null;
      try {
        chunk = await options.pull();
      } catch (error) {
        if (over !== null) throw new Error(over);
        const why = `the response body failed: ${error instanceof Error ? error.message.split('\n')[0] : 'unknown'}`;
        end(why);
        throw new Error(why);
      }
      if (over !== null) throw new Error(over);
      if (chunk === null) {
        end('the response body ended');
        return null;
      }
      if (!(chunk instanceof Uint8Array)) return refuse('the integration streamed something that is not bytes', 'not bytes');
      sent += chunk.byteLength;
      if (sent > options.maxBytes) return refuse(`the integration's response body exceeds ${options.maxBytes} bytes`, 'too large');
      return chunk;
    },
    cancel(reason) {
      if (over !== null) return;
      end(`the response body was cancelled: ${reason}`);
      options.stop(reason);
    },
  };
}

/** Where a body's chunks come from, and how to stop it. */
export type BodySource = Pick<ResponseBodyOptions, 'pull' | 'stop'>;

/** A stream of the integration's, pulled from its isolate (each chunk a copy of its own bytes). */
export function isolateBodySource(
  isolate: ivm.Isolate,
  pullBody: ivm.Reference<(id: number) => Promise<Uint8Array | null>>,
  cancelBody: ivm.Reference<(id: number, reason: string) => void>,
  id: number,
  entered: () => void,
): BodySource {
  return {
    async pull() {
      if (isolate.isDisposed) throw new Error('the integration was reset while producing its response body');
      const chunk: unknown = await pullBody.apply(undefined, [id], { arguments: { copy: true }, result: { promise: true, copy: true } });
      entered();
      if (chunk !== null && !isOwnBytes(chunk)) throw new Error('the integration streamed something that is not bytes of its own');
      return chunk as Uint8Array | null;
    },
    stop(reason) {
      if (!isolate.isDisposed) cancelBody.apply(undefined, [id, reason], { arguments: { copy: true } }).catch(() => undefined);
    },
  };
}

/** A fetch's body the integration handed on unread: sent on by the host as the connection delivered it. */
export function hostBodySource(fetched: FetchBody | undefined): BodySource {
  return {
    async pull() {
      if (fetched === undefined) throw new Error('the fetch body it passed on is gone');
      const read = await fetched.read(false);
      if (!read.ok) throw new Error(read.message);
      return read.value;
    },
    stop() {
      fetched?.cancel();
    },
  };
}

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
  /** Whether it ended, in any way. */
  readonly over: boolean;
  /** Calls `listener` once it ended in any way (at once if it has). */
  onOver(listener: () => void): void;
}

export interface ResponseBodyOptions {
  /** The source's next chunk (null at its end); may reject. */
  pull(): Promise<Uint8Array | null>;
  /** Stops the source; settles when it stopped (an integration's cancel callback ran). */
  stop(reason: string): Promise<void> | void;
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
  let stopping = false;
  const overListeners: (() => void)[] = [];
  const timer = setTimeout(() => {
    // Still stopping at the deadline: the integration's cancel callback overran it.
    if (over !== null) return stopping ? options.onDeadline() : undefined;
    end(`the response body was still being produced after ${options.deadlineMs} ms`);
    void options.stop('the response body took too long');
    options.onDeadline();
  }, options.deadlineMs);
  function refuse(why: string, reason: string): never {
    end(why, reason);
    throw new Error(why);
  }
  /**
   * Ends the body once. With `stopReason` the source is stopped first, and the body counts as ended
   * (`done`: the integration may go idle) only when that settled, its deadline still armed: an
   * integration's cancel callback runs inside its work and its time, never while it is idle.
   */
  function end(why: string, stopReason?: string): void {
    if (over !== null) return;
    over = why;
    for (const listener of overListeners.splice(0)) listener();
    const finished = () => {
      clearTimeout(timer);
      options.done();
    };
    if (stopReason === undefined) return finished();
    stopping = true;
    Promise.resolve()
      .then(() => options.stop(stopReason))
      .catch(() => undefined)
      .finally(() => {
        stopping = false;
        finished();
      });
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
      if (!(chunk instanceof Uint8Array))
        return refuse('the integration streamed something that is not bytes', 'not bytes');
      sent += chunk.byteLength;
      if (sent > options.maxBytes)
        return refuse(`the integration's response body exceeds ${options.maxBytes} bytes`, 'too large');
      return chunk;
    },
    cancel(reason) {
      end(`the response body was cancelled: ${reason}`, reason);
    },
    get over() {
      return over !== null;
    },
    onOver(listener) {
      if (over !== null) listener();
      else overListeners.push(listener);
    },
  };
}

/** Where a body's chunks come from, and how to stop it. */
export type BodySource = Pick<ResponseBodyOptions, 'pull' | 'stop'>;

/** A stream of the integration's, pulled from its isolate (each chunk a copy of its own bytes). */
export function isolateBodySource(
  isolate: ivm.Isolate,
  pullBody: ivm.Reference<(id: number) => Promise<Uint8Array | null>>,
  cancelBody: ivm.Reference<(id: number, reason: string) => Promise<void>>,
  id: number,
  entered: () => void,
): BodySource {
  return {
    async pull() {
      if (isolate.isDisposed) throw new Error('the integration was reset while producing its response body');
      const chunk: unknown = await pullBody.apply(undefined, [id], {
        arguments: { copy: true },
        result: { promise: true, copy: true },
      });
      entered();
      if (chunk !== null && !isOwnBytes(chunk))
        throw new Error('the integration streamed something that is not bytes of its own');
      return chunk as Uint8Array | null;
    },
    async stop(reason) {
      if (isolate.isDisposed) return;
      await cancelBody
        .apply(undefined, [id, reason], { arguments: { copy: true }, result: { promise: true } })
        .catch(() => undefined);
      entered();
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

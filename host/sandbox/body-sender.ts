// The worker's side of response bodies that follow their answer: sends each over the body channel
// (body-channel.ts) no further ahead than the host's credit, stops one the host cancels, and
// collects a body whole for the callers that cannot take a stream. Never sends a byte unasked.

import net from 'node:net';
import type { Duplex } from 'node:stream';
import { Frame, readFrames, writeFrame } from './body-channel.ts';
import type { ResponseBody } from './response-body.ts';
import { WINDOW_BYTES, creditOf } from './streamed-body.ts';

export interface BodySender {
  /** Sends a body that follows the answer of dispatch `id`, as the host's credit allows. */
  send(id: number, body: ResponseBody): Promise<void>;
  /** A body read whole here (ResponseBody bounds its size and time). */
  collect(body: ResponseBody): Promise<Uint8Array>;
}

/** The sender over the channel the supervisor gave this process at descriptor `fd`. */
export function createBodySender(fd: number): BodySender {
  const channel = new net.Socket({ fd, readable: true, writable: true });
  channel.on('error', () => undefined);
  channel.unref();
  return bodySenderOver(channel);
}

/** The sender over `channel`, which carries the host's acks and cancels in and the frames out. */
export function bodySenderOver(channel: Duplex): BodySender {
  /** Bodies being sent, by dispatch id: the credit the host gave and how to wake the pump waiting for more. */
  const sending = new Map<number, { body: ResponseBody; credit: number; wake: () => void }>();
  readFrames(channel, (kind, id, value) => {
    const state = sending.get(id);
    if (state === undefined) return;
    if (kind === Frame.Ack) state.credit += value;
    else if (kind === Frame.Cancel) {
      sending.delete(id);
      state.body.cancel('the client went away');
    }
    state.wake();
  });

  return {
    async send(id, body) {
      const state = { body, credit: WINDOW_BYTES, wake: () => undefined as void };
      sending.set(id, state);
      body.onOver(() => state.wake());
      try {
        for (;;) {
          // Waits for credit, or for the body to end on its own (its deadline): next() then says why.
          while (state.credit <= 0 && sending.has(id) && !body.over)
            await new Promise<void>((resolve) => (state.wake = resolve));
          if (!sending.has(id)) return;
          const chunk = await body.next();
          if (chunk === null) {
            writeFrame(channel, Frame.End, id, 0);
            return;
          }
          if (chunk.byteLength === 0) continue;
          state.credit -= creditOf(chunk);
          writeFrame(channel, Frame.Chunk, id, 0, chunk);
        }
      } catch (error) {
        writeFrame(
          channel,
          Frame.Error,
          id,
          0,
          Buffer.from(error instanceof Error ? error.message : 'the response body failed'),
        );
      } finally {
        sending.delete(id);
      }
    },
    async collect(body) {
      // One growing buffer, not a list of chunks: a body of a million one-byte chunks costs its bytes.
      let buffer = new Uint8Array(64 * 1024);
      let length = 0;
      for (let chunk = await body.next(); chunk !== null; chunk = await body.next()) {
        if (length + chunk.byteLength > buffer.byteLength) {
          const grown = new Uint8Array(Math.max(buffer.byteLength * 2, length + chunk.byteLength));
          grown.set(buffer.subarray(0, length));
          buffer = grown;
        }
        buffer.set(chunk, length);
        length += chunk.byteLength;
      }
      return buffer.slice(0, length);
    },
  };
}

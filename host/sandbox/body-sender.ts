// The worker's side of response bodies that follow their answer: sends each over the body channel
// (body-channel.ts) no further ahead than the host's credit, stops one the host cancels, and
// collects a body whole for the callers that cannot take a stream. Never sends a byte unasked.

import net from 'node:net';
import { concatBytes } from '../common/concat-bytes.ts';
import { Frame, readFrames, writeFrame } from './body-channel.ts';
import type { ResponseBody } from './response-body.ts';
import { WINDOW_BYTES } from './streamed-body.ts';

export interface BodySender {
  /** Sends a body that follows the answer of dispatch `id`, as the host's credit allows. */
  send(id: number, body: ResponseBody): Promise<void>;
  /** A body read whole here (ResponseBody bounds its size and time). */
  collect(body: ResponseBody): Promise<Uint8Array>;
}

/** The sender over the channel the supervisor gave this process at descriptor `fd`. */
export function createBodySender(fd: number): BodySender {
  /** Bodies being sent, by dispatch id: the credit the host gave and how to wake the pump waiting for more. */
  const sending = new Map<number, { body: ResponseBody; credit: number; wake: () => void }>();
  const channel = new net.Socket({ fd, readable: true, writable: true });
  channel.on('error', () => undefined);
  channel.unref();
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
      try {
        for (;;) {
          while (state.credit <= 0 && sending.has(id)) await new Promise<void>((resolve) => (state.wake = resolve));
          if (!sending.has(id)) return;
          const chunk = await body.next();
          if (chunk === null) {
            writeFrame(channel, Frame.End, id, 0);
            return;
          }
          state.credit -= chunk.byteLength;
          writeFrame(channel, Frame.Chunk, id, 0, chunk);
        }
      } catch (error) {
        writeFrame(channel, Frame.Error, id, 0, Buffer.from(error instanceof Error ? error.message : 'the response body failed'));
      } finally {
        sending.delete(id);
      }
    },
    async collect(body) {
      const parts: Uint8Array[] = [];
      for (let chunk = await body.next(); chunk !== null; chunk = await body.next()) parts.push(chunk);
      return concatBytes(parts);
    },
  };
}

// The supervisor's side of response bodies that follow their answer, per worker slot: the
// StreamedBody of each dispatch, made by its answer or by its first frame on the body channel
// (the two channels are not ordered with each other), fed by the frames, ended exactly once.
// Only a dispatch still waiting for its answer, or answered with a body, gets one.

import { Frame, writeFrame } from './body-channel.ts';
import { StreamedBody } from './streamed-body.ts';
import type { Slot } from './worker-slot.ts';

/** The body following dispatch `id` of `slot`, made now if neither its answer nor a frame made it yet. */
export function bodyOf(slot: Slot, id: number): StreamedBody {
  let body = slot.bodies.get(id);
  if (body === undefined) {
    body = new StreamedBody({
      ack: (bytes) => writeFrame(slot.channel, Frame.Ack, id, bytes),
      cancel: () => {
        slot.bodies.delete(id);
        writeFrame(slot.channel, Frame.Cancel, id, 0);
      },
    });
    slot.bodies.set(id, body);
  }
  return body;
}

/** The body of an answer that says it follows; one that came whole before it is taken off the slot. */
export function answeredBody(slot: Slot, id: number): StreamedBody {
  const body = bodyOf(slot, id);
  if (body.settled) slot.bodies.delete(id);
  return body;
}

/** A frame of the worker's body channel, for a dispatch of this slot. */
export function onBodyFrame(slot: Slot, kind: Frame, id: number, payload: Buffer | null): void {
  if (!slot.bodies.has(id) && !slot.pending.has(id)) {
    // A body nobody here reads any more: the worker stops sending it.
    if (kind === Frame.Chunk) writeFrame(slot.channel, Frame.Cancel, id, 0);
    return;
  }
  const body = bodyOf(slot, id);
  if (kind === Frame.Chunk && payload !== null) body.push(payload);
  else if (kind === Frame.End || kind === Frame.Error) {
    // Kept for its answer when that is still on its way (answeredBody takes it then).
    if (!slot.pending.has(id)) slot.bodies.delete(id);
    body.end(kind === Frame.Error ? (payload?.toString('utf8') ?? 'the response body failed') : undefined);
  }
}

/** The worker died: every body still arriving fails. */
export function failBodies(slot: Slot, reason: string): void {
  for (const body of slot.bodies.values()) body.end(reason);
  slot.bodies.clear();
}

// A streamed response body between a worker's sender (body-sender.ts) and the host's StreamedBody
// (slot-bodies.ts), over an in-memory channel: the window bounds the frames the host holds, not
// only their bytes; empty chunks are not sent; a body that ends while the host gives no credit
// still says so; a frame nobody at the host reads is answered with a cancel; and a cancelled body
// counts as ended only once its source stopped.
import { PassThrough, Duplex } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readFrames } from '../../../host/sandbox/body-channel.ts';
import { bodySenderOver } from '../../../host/sandbox/body-sender.ts';
import { responseBody, type ResponseBodyOptions } from '../../../host/sandbox/response-body.ts';
import { onBodyFrame } from '../../../host/sandbox/slot-bodies.ts';
import type { StreamedBody } from '../../../host/sandbox/streamed-body.ts';
import type { Slot } from '../../../host/sandbox/worker-slot.ts';
import { waitFor } from '../../helpers/host.ts';

/** A host slot and a worker sender joined by two in-memory pipes; `awaited` are the dispatch ids the host waits on. */
function channel(awaited: number[]) {
  const toHost = new PassThrough();
  const toWorker = new PassThrough();
  const slot = {
    channel: Duplex.from({ readable: toHost, writable: toWorker }),
    bodies: new Map<number, StreamedBody>(),
    pending: new Map(awaited.map((id) => [id, {}])),
  };
  readFrames(slot.channel, (kind, id, _value, payload) => onBodyFrame(slot as unknown as Slot, kind, id, payload));
  const sender = bodySenderOver(Duplex.from({ readable: toWorker, writable: toHost }));
  return { slot, sender };
}

/** A body whose source hands out `chunk()` on every pull; counts pulls and stops. */
function source(chunk: (pull: number) => Uint8Array | null, overrides: Partial<ResponseBodyOptions> = {}) {
  const seen = { pulls: 0, stops: [] as string[], done: 0, deadlines: 0 };
  const body = responseBody({
    pull: async () => chunk(seen.pulls++),
    stop: (reason) => void seen.stops.push(reason),
    maxBytes: 1 << 30,
    deadlineMs: 60_000,
    onDeadline: () => void seen.deadlines++,
    done: () => void seen.done++,
    ...overrides,
  });
  return { body, seen };
}

const turns = async (count: number) => {
  for (let i = 0; i < count; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe('a streamed body between worker and host', () => {
  it('puts at most 256 one-byte chunks in the 1 MB window while the host reads nothing', async () => {
    const { slot, sender } = channel([1]);
    const { body, seen } = source(() => new Uint8Array([120]));
    void sender.send(1, body);
    await waitFor(() => seen.pulls >= 256, 10_000);
    await turns(50);
    // Each chunk costs at least 4 KB of credit: 1 MB / 4 KB.
    expect(seen.pulls).toBe(256);
    body.cancel('test over');
    await waitFor(() => seen.done === 1, 10_000);
    expect(slot.bodies.size).toBeLessThanOrEqual(1);
  });

  it('sends no frame for an empty chunk', async () => {
    const { slot, sender } = channel([2]);
    const { body } = source((pull) =>
      pull < 10 ? new Uint8Array(0) : pull === 10 ? new TextEncoder().encode('x') : null,
    );
    await sender.send(2, body);
    await waitFor(() => slot.bodies.get(2)?.settled === true, 10_000);
    const received: string[] = [];
    for await (const chunk of slot.bodies.get(2)!) received.push(new TextDecoder().decode(chunk));
    expect(received).toEqual(['x']);
  });

  it('tells the host when the deadline ends a body that waits for credit', async () => {
    const { slot, sender } = channel([3]);
    const { body, seen } = source(() => new Uint8Array(64 * 1024), { deadlineMs: 200 });
    const sent = sender.send(3, body);
    await waitFor(() => seen.deadlines === 1, 10_000);
    await sent;
    await waitFor(() => slot.bodies.get(3)?.settled === true, 10_000);
    await expect(slot.bodies.get(3)!.collect(1 << 30)).rejects.toThrow(/still being produced after 200 ms/);
  });

  it('cancels a body whose frames nobody at the host waits for', async () => {
    const { slot, sender } = channel([]);
    const { body, seen } = source(() => new Uint8Array(16));
    await sender.send(4, body);
    await waitFor(() => seen.done === 1, 10_000);
    expect(seen.stops).toEqual(['the client went away']);
    expect(slot.bodies.size).toBe(0);
  });
});

describe('a cancelled body', () => {
  it('counts as ended only once its source stopped (a cancel callback runs inside the work)', async () => {
    let stopped: () => void = () => undefined;
    const { body, seen } = source(() => null, { stop: () => new Promise<void>((resolve) => (stopped = resolve)) });
    body.cancel('the client went away');
    await turns(5);
    expect(body.over).toBe(true);
    expect(seen.done).toBe(0);
    stopped();
    await waitFor(() => seen.done === 1, 10_000);
  });

  it('reaches its deadline when its source never stops', async () => {
    const { body, seen } = source(() => null, { stop: () => new Promise<void>(() => undefined), deadlineMs: 100 });
    body.cancel('the client went away');
    await waitFor(() => seen.deadlines === 1, 10_000);
    expect(seen.done).toBe(0);
  });
});

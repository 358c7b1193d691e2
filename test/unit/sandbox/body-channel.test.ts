// The body channel's framing (body-channel.ts): frames come out in order however the socket splits
// or joins them, payloads byte for byte; a chunk's payload may come in parts (joined here).
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Frame, readFrames, writeFrame } from '../../../host/sandbox/body-channel.ts';

interface Seen {
  kind: number;
  id: number;
  value: number;
  payload: string | null;
}

/** Writes frames into one stream, then delivers what it carries in pieces of `sizes` bytes, in turn. */
async function roundTrip(write: (socket: PassThrough) => void, sizes: number[]): Promise<Seen[]> {
  const out = new PassThrough();
  const written: Buffer[] = [];
  out.on('data', (data: Buffer) => written.push(data));
  write(out);
  await new Promise((resolve) => setImmediate(resolve));
  const all = Buffer.concat(written);
  const input = new PassThrough();
  const seen: Seen[] = [];
  let joining = false;
  readFrames(input, (kind, id, value, payload) => {
    const text = payload === null ? null : payload.toString('latin1');
    const last = seen.at(-1);
    // The parts of one chunk frame, joined: a chunk's boundaries inside a frame mean nothing.
    if (kind === Frame.Chunk && last?.kind === Frame.Chunk && last.id === id && joining) {
      last.payload = `${last.payload}${text}`;
      last.value += value;
    } else seen.push({ kind, id, value, payload: text });
    joining = kind === Frame.Chunk;
  });
  for (let offset = 0, i = 0; offset < all.length; i++) {
    const size = sizes[i % sizes.length];
    input.write(all.subarray(offset, offset + size));
    offset += size;
  }
  await new Promise((resolve) => setImmediate(resolve));
  return seen;
}

const frames = (socket: PassThrough) => {
  writeFrame(socket, Frame.Chunk, 7, 0, Buffer.from('hello'));
  writeFrame(socket, Frame.Ack, 7, 65_536);
  writeFrame(socket, Frame.Chunk, 4_000_000_000, 0, Buffer.alloc(70_000, 'x'));
  writeFrame(socket, Frame.Chunk, 8, 0, new Uint8Array(0));
  writeFrame(socket, Frame.Error, 8, 0, Buffer.from('broke'));
  writeFrame(socket, Frame.End, 7, 0);
  writeFrame(socket, Frame.Cancel, 9, 0);
};

const expected: Seen[] = [
  { kind: Frame.Chunk, id: 7, value: 5, payload: 'hello' },
  { kind: Frame.Ack, id: 7, value: 65_536, payload: null },
  { kind: Frame.Chunk, id: 4_000_000_000, value: 70_000, payload: 'x'.repeat(70_000) },
  { kind: Frame.Chunk, id: 8, value: 0, payload: '' },
  { kind: Frame.Error, id: 8, value: 5, payload: 'broke' },
  { kind: Frame.End, id: 7, value: 0, payload: null },
  { kind: Frame.Cancel, id: 9, value: 0, payload: null },
];

describe('the body channel', () => {
  it('carries frames whole and in order when they arrive together', async () => {
    expect(await roundTrip(frames, [1 << 20])).toEqual(expected);
  });

  it('carries frames whole and in order when the socket splits them anywhere', async () => {
    for (const sizes of [[1], [3, 7], [9], [10, 4_096], [65_536, 1]])
      expect(await roundTrip(frames, sizes), String(sizes)).toEqual(expected);
  });
});

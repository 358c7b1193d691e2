// The byte channel between the supervisor and a sandbox worker for response bodies that follow
// their answer: a socket pair of its own (the worker's fd 4), framed, so body bytes are written and
// read as they are instead of being serialized through the IPC channel (which caps near 200 MB/s
// and costs a copy on each side). Frames: kind (1 byte), dispatch id (4 bytes LE), length or
// value (4 bytes LE), then `length` payload bytes for chunks and errors. Pure framing: no policy.

import type { Duplex } from 'node:stream';

/** The worker's descriptor for the channel (stdio: ignore, stdout, stderr, ipc, channel). */
export const BODY_CHANNEL_FD = 4;

export const Frame = {
  /** worker → host: payload is the next chunk of the body. */
  Chunk: 1,
  /** worker → host: the body ended. */
  End: 2,
  /** worker → host: the body failed; payload is the reason, UTF-8. */
  Error: 3,
  /** host → worker: the host's reader took `value` bytes (more credit). */
  Ack: 4,
  /** host → worker: the host reads no more of the body. */
  Cancel: 5,
} as const;
export type Frame = (typeof Frame)[keyof typeof Frame];

const HEADER_BYTES = 9;

/** One frame, or one part of a chunk frame's payload (`value` is then that part's length). */
export type FrameHandler = (kind: Frame, id: number, value: number, payload: Buffer | null) => void;

/** Writes one frame; a payload goes out as it is, after its header (no copy). */
export function writeFrame(socket: Duplex, kind: Frame, id: number, value: number, payload?: Uint8Array): void {
  const header = Buffer.allocUnsafe(HEADER_BYTES);
  header.writeUInt8(kind, 0);
  header.writeUInt32LE(id >>> 0, 1);
  header.writeUInt32LE(payload === undefined ? value >>> 0 : payload.byteLength, 5);
  if (payload === undefined || payload.byteLength === 0) {
    socket.write(header);
    return;
  }
  socket.cork();
  socket.write(header);
  socket.write(payload);
  process.nextTick(() => socket.uncork());
}

/** Kinds that carry a payload of `length` bytes after their header. */
const withPayload = (kind: number): boolean => kind === Frame.Chunk || kind === Frame.Error;

/** Bytes that arrived and are not framed yet: read from the front without copying where it can. */
class Arrived {
  private chunks: Buffer[] = [];
  bytes = 0;

  /** Bytes of the first piece that arrived (what can be taken without a copy). */
  firstLength(): number {
    return this.chunks[0]?.length ?? 0;
  }

  push(data: Buffer): void {
    this.chunks.push(data);
    this.bytes += data.length;
  }

  /** The first `n` bytes, removed: a view when they lie in one piece, else a copy joining them. */
  take(n: number): Buffer {
    if (n === 0) return Buffer.alloc(0);
    const first = this.chunks[0];
    let out: Buffer;
    if (first.length >= n) {
      out = first.subarray(0, n);
      if (first.length === n) this.chunks.shift();
      else this.chunks[0] = first.subarray(n);
    } else {
      out = Buffer.allocUnsafe(n);
      let filled = 0;
      while (filled < n) {
        const chunk = this.chunks[0];
        const part = Math.min(chunk.length, n - filled);
        chunk.copy(out, filled, 0, part);
        filled += part;
        if (part === chunk.length) this.chunks.shift();
        else this.chunks[0] = chunk.subarray(part);
      }
    }
    this.bytes -= n;
    return out;
  }
}

/**
 * Reads frames from a socket as they arrive, handing each to `handle`. A chunk's payload is handed
 * on in the parts the socket delivered it in (several calls with the same id, each part a view of
 * what arrived, never a copy: a body's chunk boundaries mean nothing); an error's is joined first.
 */
export function readFrames(socket: Duplex, handle: FrameHandler): void {
  const arrived = new Arrived();
  let header: Buffer | null = null;
  /** What is left of the chunk frame being read (its header is consumed). */
  let chunkLeft = 0;
  let chunkId = 0;
  socket.on('data', (data: Buffer) => {
    arrived.push(data);
    for (;;) {
      if (chunkLeft > 0) {
        if (arrived.bytes === 0) return;
        const part = arrived.take(Math.min(chunkLeft, arrived.firstLength()));
        chunkLeft -= part.length;
        handle(Frame.Chunk, chunkId, part.length, part);
        continue;
      }
      if (header === null) {
        if (arrived.bytes < HEADER_BYTES) return;
        header = arrived.take(HEADER_BYTES);
      }
      const kind = header.readUInt8(0);
      const id = header.readUInt32LE(1);
      const value = header.readUInt32LE(5);
      if (kind === Frame.Chunk && value > 0) {
        header = null;
        chunkLeft = value;
        chunkId = id;
        continue;
      }
      const length = withPayload(kind) ? value : 0;
      if (arrived.bytes < length) return;
      header = null;
      handle(kind as Frame, id, value, withPayload(kind) ? arrived.take(length) : null);
    }
  });
}

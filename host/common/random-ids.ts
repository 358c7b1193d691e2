// Unpredictable ids drawn from a pool of random bytes, refilled many ids at a time: one
// `randomBytes` call per draw instead of one per id on hot paths (request ids, event ids).
// Never a counter or a clock: these ids are shown to callers and guests.

import { randomBytes } from 'node:crypto';

/** An id source: each call returns `bytesEach` fresh random bytes encoded as `encoding`. */
export function pooledRandomIds(bytesEach: number, idsPerDraw: number, encoding: 'hex' | 'base64url'): () => string {
  let pool = Buffer.alloc(0);
  let offset = 0;
  return () => {
    if (offset === pool.length) {
      pool = randomBytes(bytesEach * idsPerDraw);
      offset = 0;
    }
    const id = pool.toString(encoding, offset, offset + bytesEach);
    offset += bytesEach;
    return id;
  };
}

// The host's second line against shared memory from an isolate: bytes a guest could still write
// while the host reads them (a view on a SharedArrayBuffer) are refused, never read or copied. The
// runtime copies everything that crosses out of shared memory first (sandbox-api/runtime/unshared.ts).

import { isSharedArrayBuffer } from 'node:util/types';

/** Whether `value` is a Uint8Array on memory of its own: not a view on a SharedArrayBuffer. */
export function isOwnBytes(value: unknown): value is Uint8Array {
  return value instanceof Uint8Array && !isSharedArrayBuffer(value.buffer);
}

// Comparing a presented secret (token, signature, ticket, install link) with the expected one in
// constant time. Pure; the only place these comparisons are written.

import { timingSafeEqual } from 'node:crypto';

/** Whether `given` equals `expected`, without the time taken saying how much of it matched. */
export function sameBytes(expected: Uint8Array | string, given: Uint8Array | string): boolean {
  const left = typeof expected === 'string' ? Buffer.from(expected) : expected;
  const right = typeof given === 'string' ? Buffer.from(given) : given;
  return left.length === right.length && timingSafeEqual(left, right);
}

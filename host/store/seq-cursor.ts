// The opaque cursor of the lists that page by a table's `seq` (event log, webhook deliveries), for
// both stores. Pure: encodes a position, and refuses with ERR_VALIDATION a cursor it did not make.

import { HostError } from '../common/errors.ts';

export function encodeSeqCursor(seq: number | string): string {
  return Buffer.from(`seq:${seq}`).toString('base64url');
}

export function decodeSeqCursor(cursor: string): number {
  const match = /^seq:(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (match === null)
    throw new HostError('ERR_VALIDATION', 'cursor is not one this host issued', [
      { pointer: '/cursor', message: 'is invalid' },
    ]);
  return Number(match[1]);
}

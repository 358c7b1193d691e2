// The pooled id source behind request ids and event ids: fixed-length ids in the asked encoding,
// never repeated across the draws that refill its pool.
import { describe, it, expect } from 'vitest';
import { pooledRandomIds } from '../../../host/common/random-ids.ts';
import { newEventId } from '../../../host/dispatch/event-dispatcher.ts';

describe('pooled random ids', () => {
  it('gives ids of the asked size and encoding, all different, across several refills of its pool', () => {
    const next = pooledRandomIds(16, 4, 'hex');
    const ids = Array.from({ length: 41 }, () => next());
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('encodes base64url ids of 6 bytes as 8 characters', () => {
    const next = pooledRandomIds(6, 3, 'base64url');
    const ids = Array.from({ length: 10 }, () => next());
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]{8}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('gives event ids of 128 random bits in the evt_ form', () => {
    const ids = Array.from({ length: 600 }, () => newEventId());
    for (const id of ids) expect(id).toMatch(/^evt_[0-9a-f]{32}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

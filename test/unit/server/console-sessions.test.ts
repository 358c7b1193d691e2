// Console session records: random ids and CSRF tokens, expiry at the TTL, deletion, and the oldest
// ended beyond 1,000 live sessions.
import { describe, it, expect } from 'vitest';
import { createConsoleSessions } from '../../../host/server/console/sessions.ts';

describe('createConsoleSessions', () => {
  it('creates distinct random ids and CSRF tokens and finds a session by its id', () => {
    const sessions = createConsoleSessions({ now: () => 1_000, ttlMs: 60_000 });
    const a = sessions.create();
    const b = sessions.create();
    expect(a.id).not.toBe(b.id);
    expect(a.session.csrfToken).not.toBe(b.session.csrfToken);
    expect(a.id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(sessions.get(a.id)).toEqual({ csrfToken: a.session.csrfToken, createdAt: 1_000, expiresAt: 61_000 });
    expect(sessions.get(`${a.id}x`)).toBeUndefined();
  });

  it('expires a session at its TTL and forgets it', () => {
    let now = 0;
    const sessions = createConsoleSessions({ now: () => now, ttlMs: 1_000 });
    const { id } = sessions.create();
    now = 999;
    expect(sessions.get(id)).toBeDefined();
    now = 1_000;
    expect(sessions.get(id)).toBeUndefined();
    now = 0;
    expect(sessions.get(id)).toBeUndefined();
  });

  it('deletes a session', () => {
    const sessions = createConsoleSessions({ now: () => 0, ttlMs: 1_000 });
    const { id } = sessions.create();
    expect(sessions.delete(id)).toBe(true);
    expect(sessions.get(id)).toBeUndefined();
    expect(sessions.delete(id)).toBe(false);
  });

  it('ends the oldest session beyond 1,000 live ones', () => {
    const sessions = createConsoleSessions({ now: () => 0, ttlMs: 1_000 });
    const first = sessions.create();
    const second = sessions.create();
    for (let i = 0; i < 998; i++) sessions.create();
    expect(sessions.get(first.id)).toBeDefined();
    sessions.create();
    expect(sessions.get(first.id)).toBeUndefined();
    expect(sessions.get(second.id)).toBeDefined();
  });
});

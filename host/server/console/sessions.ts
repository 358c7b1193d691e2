// Console sessions: the admin token exchanged at sign-in for a random session id, kept here in
// memory with an absolute expiry, and a per-session CSRF token. Owns only the records; it must
// never store a raw session id (only its digest) nor return an expired session.

import { createHash, randomBytes } from 'node:crypto';

export interface ConsoleSession {
  /** The CSRF token the console sends back in `X-CSRF-Token` on every API call. */
  csrfToken: string;
  createdAt: number;
  expiresAt: number;
}

export interface ConsoleSessions {
  /** A new session; the id goes into the cookie and is never kept here in clear. */
  create(): { id: string; session: ConsoleSession };
  /** The live session of a cookie value, or undefined (unknown, signed out or expired). */
  get(id: string): ConsoleSession | undefined;
  /** Ends a session; true when it existed. */
  delete(id: string): boolean;
  readonly ttlMs: number;
}

/** Sign-ins beyond this many live sessions end the oldest one (memory stays bounded). */
const MAX_SESSIONS = 1_000;

function keyOf(id: string): string {
  return createHash('sha256').update(id, 'utf8').digest('base64url');
}

export function createConsoleSessions(options: { now: () => number; ttlMs: number }): ConsoleSessions {
  const ttlMs = options.ttlMs;
  // Insertion order is creation order, which is what eviction of the oldest needs.
  const sessions = new Map<string, ConsoleSession>();

  const prune = (now: number): void => {
    for (const [key, session] of sessions) if (session.expiresAt <= now) sessions.delete(key);
  };

  return {
    ttlMs,
    create() {
      const now = options.now();
      prune(now);
      while (sessions.size >= MAX_SESSIONS) sessions.delete(sessions.keys().next().value as string);
      const id = randomBytes(32).toString('base64url');
      const session: ConsoleSession = {
        csrfToken: randomBytes(32).toString('base64url'),
        createdAt: now,
        expiresAt: now + ttlMs,
      };
      sessions.set(keyOf(id), session);
      return { id, session };
    },
    get(id) {
      const key = keyOf(id);
      const session = sessions.get(key);
      if (session === undefined) return undefined;
      if (session.expiresAt <= options.now()) {
        sessions.delete(key);
        return undefined;
      }
      return session;
    },
    delete(id) {
      return sessions.delete(keyOf(id));
    },
  };
}

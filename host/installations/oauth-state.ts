// OAuth `state` values (docs/installations.md): signed by the host (HMAC-SHA256 with the host secret), bound to
// one installation, expiring after a TTL (10 minutes by default) and accepted once. Never accepts a
// state it cannot verify; the clock is injected so tests can age a state.

import { createHmac, randomBytes } from 'node:crypto';
import { sameBytes } from '../common/same-bytes.ts';
import { HostError } from '../common/errors.ts';

export const OAUTH_STATE_TTL_MS = 10 * 60 * 1000;

/** Which state nonces were issued, to whom, until when, and whether they were used. */
export interface OAuthStateStore {
  insert(nonce: string, installationId: string, expiresAtMs: number): Promise<void>;
  /**
   * Marks the nonce used if it was issued to that installation and is unused; false otherwise.
   * One UPDATE, so two concurrent callbacks with the same state cannot both succeed, on one host or several.
   */
  markUsed(nonce: string, installationId: string, usedAtMs: number): Promise<boolean>;
  /** Forgets states that expired before `beforeMs` (used or not): they can never be accepted again. */
  deleteExpired(beforeMs: number): Promise<void>;
}

export interface OAuthStates {
  issue(installationId: string): Promise<string>;
  /**
   * Accepts the state once for this installation; rejects with 400 ERR_OAUTH_STATE_INVALID and the reason otherwise.
   */
  consume(installationId: string, state: string): Promise<void>;
}

export interface OAuthStatesOptions {
  store: OAuthStateStore;
  secret: string;
  now(): number;
  ttlMs?: number;
}

interface StatePayload {
  n: string;
  i: string;
  e: number;
}

function signPayload(secret: string, payload: string): string {
  // Domain-separated from the installation tokens derived from the same secret.
  return createHmac('sha256', secret).update(`oauth-state:${payload}`).digest('base64url');
}

function rejected(reason: string): HostError {
  return new HostError('ERR_OAUTH_STATE_INVALID', `OAuth state rejected: ${reason}`);
}

function readPayload(secret: string, state: string): StatePayload {
  const parts = state.split('.');
  if (parts.length !== 2 || parts[0] === '' || parts[1] === '') throw rejected('it is malformed');
  const expected = Buffer.from(signPayload(secret, parts[0]));
  const given = Buffer.from(parts[1]);
  if (!sameBytes(expected, given))
    throw rejected('its signature does not match (tampered, or not issued by this host)');
  const payload = JSON.parse(Buffer.from(parts[0], 'base64url').toString('utf8')) as StatePayload;
  return payload;
}

export function createOAuthStates(options: OAuthStatesOptions): OAuthStates {
  const ttlMs = options.ttlMs ?? OAUTH_STATE_TTL_MS;
  return {
    async issue(installationId) {
      const now = options.now();
      await options.store.deleteExpired(now);
      const payload: StatePayload = { n: randomBytes(16).toString('base64url'), i: installationId, e: now + ttlMs };
      const encoded = Buffer.from(JSON.stringify(payload)).toString('base64url');
      await options.store.insert(payload.n, installationId, payload.e);
      return `${encoded}.${signPayload(options.secret, encoded)}`;
    },
    async consume(installationId, state) {
      const payload = readPayload(options.secret, state);
      if (payload.i !== installationId) throw rejected('it was issued to another installation');
      const now = options.now();
      if (!(now < payload.e)) throw rejected('it has expired; start the connection again');
      if (!(await options.store.markUsed(payload.n, installationId, now)))
        throw rejected('it was already used; start the connection again');
    },
  };
}

// The states the host puts in place of a GitBook-runtime integration's own `state` when it sends a
// browser to an OAuth provider (docs/security.md, "OAuth with GitBook's runtime"): signed with the
// host secret, bound to one installation, one callback URL and one browser, short-lived and
// redeemable once across every host sharing the store. The integration's own state waits in the
// store until the callback. Never accepts a state it cannot verify; the clock is injected.

import { createHash, createHmac, randomBytes } from 'node:crypto';
import { sameBytes } from '../common/same-bytes.ts';

/** How long a browser has between being sent to the provider and coming back. */
export const SEALED_STATE_TTL_MS = 10 * 60 * 1000;

/** The longest state of an integration's own the host keeps for it (GitBook's runtime writes about 40 characters). */
export const MAX_ORIGINAL_STATE_CHARS = 4096;

export interface SealedStateRow {
  nonce: string;
  integration: string;
  /** The installation whose ticketed start (or redeemed callback) the flow began from. */
  installationId: string;
  /** The path of the redirect_uri: the only place the state is accepted. */
  callbackPath: string;
  /** sha256 of the browser's binding cookie (base64url); the cookie itself is never stored. */
  bindingHash: string;
  /** The integration's own state, restored on the callback; null when it sent none. */
  originalState: string | null;
  expiresAt: number;
  usedAt: number | null;
}

export interface SealedStateStore {
  insert(row: Omit<SealedStateRow, 'usedAt'>): Promise<void>;
  get(nonce: string): Promise<SealedStateRow | undefined>;
  /** Marks it used unless it already is: one conditional UPDATE, so two hosts cannot both succeed. */
  markUsed(nonce: string, usedAtMs: number): Promise<boolean>;
  /** Forgets rows that expired before `beforeMs` (used or not): they can never be redeemed again. */
  deleteExpired(beforeMs: number): Promise<void>;
}

export interface SealInput {
  integration: string;
  installationId: string;
  callbackPath: string;
  originalState: string | null;
}

/** What the browser gets: the state for the provider, and the binding its cookie must carry back. */
export interface Sealed {
  state: string;
  nonce: string;
  binding: string;
  /** How long the state lives, in whole seconds: the binding cookie's Max-Age. */
  maxAgeSeconds: number;
}

export interface RedeemInput {
  integration: string;
  /** The path the callback arrived at (as `URL#pathname` spells it). */
  callbackPath: string;
  state: string;
  /** The binding cookie this browser carries for a nonce, if any. */
  bindingFor(nonce: string): string | undefined;
}

export type Redeemed =
  | { ok: true; nonce: string; installationId: string; originalState: string | null }
  /** `nonce` is set once the state is known to be the host's, so its browser's cookie can be cleared. */
  | { ok: false; reason: string; nonce?: string };

export interface SealedStates {
  seal(input: SealInput): Promise<Sealed>;
  redeem(input: RedeemInput): Promise<Redeemed>;
}

export interface SealedStatesOptions {
  store: SealedStateStore;
  secret: string;
  now(): number;
  ttlMs?: number;
}

function signNonce(secret: string, nonce: string): string {
  // Domain-separated from the tokens, tickets and sandbox-api states derived from the same secret.
  return createHmac('sha256', secret).update(`sealed-oauth-state:${nonce}`).digest('base64url');
}

function hashBinding(binding: string): string {
  return createHash('sha256').update(binding).digest('base64url');
}

const NONCE = /^[A-Za-z0-9_-]{22}$/;

export function createSealedStates(options: SealedStatesOptions): SealedStates {
  const ttlMs = options.ttlMs ?? SEALED_STATE_TTL_MS;
  const refused = (reason: string, nonce?: string): Redeemed =>
    nonce === undefined ? { ok: false, reason } : { ok: false, reason, nonce };
  return {
    async seal(input) {
      const now = options.now();
      await options.store.deleteExpired(now);
      const nonce = randomBytes(16).toString('base64url');
      const binding = randomBytes(32).toString('base64url');
      await options.store.insert({ nonce, ...input, bindingHash: hashBinding(binding), expiresAt: now + ttlMs });
      return {
        state: `${nonce}.${signNonce(options.secret, nonce)}`,
        nonce,
        binding,
        maxAgeSeconds: Math.ceil(ttlMs / 1000),
      };
    },

    async redeem(input) {
      const [nonce, signature, ...rest] = input.state.split('.');
      if (rest.length > 0 || signature === undefined || !NONCE.test(nonce))
        return refused('it is not a state this host issued (malformed)');
      if (!sameBytes(signNonce(options.secret, nonce), signature))
        return refused('its signature does not match (tampered with, or not issued by this host)');
      const row = await options.store.get(nonce);
      if (row === undefined) return refused('this host has no record of it (expired and forgotten, or never issued)');
      if (row.integration !== input.integration || row.callbackPath !== input.callbackPath) {
        return refused('it was issued for another callback URL (another installation or integration)');
      }
      const now = options.now();
      if (!(now < row.expiresAt))
        return refused("it has expired; start the connection again from the installation's button", nonce);
      if (row.usedAt !== null)
        return refused("it was already used; start the connection again from the installation's button", nonce);
      // Checked before the state is spent: a browser that is not the one it was issued to cannot
      // burn the genuine browser's state.
      const binding = input.bindingFor(nonce);
      if (binding === undefined || !sameBytes(row.bindingHash, hashBinding(binding))) {
        return refused(
          'it was issued to another browser: the connection must be ' +
            "finished in the browser that opened the installation's button",
        );
      }
      if (!(await options.store.markUsed(nonce, now)))
        return refused("it was already used; start the connection again from the installation's button", nonce);
      return { ok: true, nonce, installationId: row.installationId, originalState: row.originalState };
    },
  };
}

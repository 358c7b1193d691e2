// Signing secrets of webhook installations: generation and the rotation record (docs/webhooks.md).
// Pure apart from the random source; never logs a secret. Storage lives in store/.

import { randomBytes } from 'node:crypto';

/** 32 random bytes, base64url: 43 URL-safe characters, used as the HMAC key as UTF-8 text. */
const SIGNING_SECRET_BYTES = 32;
/** How long the previous secret keeps signing after a rotation, so receivers can switch over. */
export const DEFAULT_ROTATION_WINDOW_MS = 24 * 60 * 60 * 1000;

export interface SigningSecrets {
  current: string;
  previous?: string;
  /** ISO time after which `previous` no longer signs. */
  previousExpiresAt?: string;
}

export function generateSigningSecret(random: (size: number) => Uint8Array = randomBytes): string {
  return Buffer.from(random(SIGNING_SECRET_BYTES)).toString('base64url');
}

export function createSigningSecrets(generate: () => string = generateSigningSecret): SigningSecrets {
  return { current: generate() };
}

/** A new current secret; the old one keeps signing until `nowMs + windowMs`. */
export function rotateSigningSecrets(
  secrets: SigningSecrets,
  nowMs: number,
  windowMs: number = DEFAULT_ROTATION_WINDOW_MS,
  generate: () => string = generateSigningSecret,
): SigningSecrets {
  if (windowMs <= 0) return { current: generate() };
  return {
    current: generate(),
    previous: secrets.current,
    previousExpiresAt: new Date(nowMs + windowMs).toISOString(),
  };
}

/** The secrets that sign right now, current first (one `v1=` each). */
export function activeSigningSecrets(secrets: SigningSecrets, nowMs: number): string[] {
  const previousActive =
    secrets.previous !== undefined &&
    secrets.previousExpiresAt !== undefined &&
    Date.parse(secrets.previousExpiresAt) > nowMs;
  return previousActive ? [secrets.current, secrets.previous as string] : [secrets.current];
}

/**
 * Durable signing secrets per webhook installation. Never returns a secret except from
 * create/rotate (to be shown once) and secretsFor (to sign).
 */
export interface SigningSecretStore {
  /** Creates (or replaces) the installation's secret; returns it once for `signingSecret`. */
  create(installationId: string): Promise<string>;
  /**
   * Rotates atomically: returns the new secret; the previous one keeps signing for the rotation window. Undefined if
   * none exists.
   */
  rotate(installationId: string, nowMs: number, windowMs?: number): Promise<string | undefined>;
  get(installationId: string): Promise<SigningSecrets | undefined>;
  /** The secrets that sign now, current first; empty when the installation has none (uninstalled). */
  secretsFor(installationId: string, nowMs: number): Promise<string[]>;
  /** secretsFor of several installations in one read (a claimed batch): an entry for each id, empty when gone. */
  secretsForMany(installationIds: readonly string[], nowMs: number): Promise<Map<string, string[]>>;
  remove(installationId: string): Promise<void>;
}

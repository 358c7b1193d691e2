// Installation API tokens: derived from a host secret (so the host can put the token in every
// envelope without storing it) and stored only as a sha256 hash (so a leaked store leaks no
// token). Pure functions; the secret is loaded or created by the caller.

import { createHash, createHmac, randomBytes } from 'node:crypto';

export const TOKEN_SECRET_META_KEY = 'token-secret';

export function newTokenSecret(): string {
  return randomBytes(32).toString('base64url');
}

export function deriveInstallationToken(secret: string, installationId: string): string {
  return `iht_${createHmac('sha256', secret).update(`installation:${installationId}`).digest('base64url')}`;
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** The share link of an unlisted integration: knowing it is what grants installation rights. */
export function deriveInstallLink(secret: string, integration: string): string {
  return createHmac('sha256', secret).update(`install-link:${integration}`).digest('base64url').slice(0, 32);
}

// Installation API tokens: derived from a host secret (so the host can put the token in every
// envelope without storing it) and stored only as a sha256 hash (so a leaked store leaks no
// token). Pure functions; the secret is loaded or created by the caller.

import { createHash, createHmac, randomBytes } from 'node:crypto';
import { sameBytes } from '../common/same-bytes.ts';

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

/**
 * The integration token (GitBook's `apiTokens.integration`): acts as the integration itself, never
 * as one of its installations. Self-verifying (`ihi_<name>.<mac>`), derived like installation
 * tokens, so it needs no storage; an integration that is no longer loaded is refused by the API.
 */
export function deriveIntegrationToken(secret: string, integration: string): string {
  const name = Buffer.from(integration).toString('base64url');
  return `ihi_${name}.${createHmac('sha256', secret).update(`integration-token:${integration}`).digest('base64url')}`;
}

/** The integration an integration token names, or undefined when it was not derived from `secret`. */
export function verifyIntegrationToken(secret: string, token: string): string | undefined {
  const match = /^ihi_([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/.exec(token);
  if (match === null) return undefined;
  const integration = Buffer.from(match[1], 'base64url').toString('utf8');
  const expected = Buffer.from(deriveIntegrationToken(secret, integration));
  const given = Buffer.from(token);
  return sameBytes(expected, given) ? integration : undefined;
}

/**
 * Whether a bearer token has the shape of a host API token (installation or integration): such a request is an API
 * call.
 */
export function looksLikeApiToken(token: string): boolean {
  return token.startsWith('iht_') || token.startsWith('ihi_');
}

/**
 * GitBook's `signingSecrets`: one stable secret per integration and per installation, derived from
 * the host secret, handed to the integration in its environment (visitor-auth integrations sign
 * their tokens with them). The host signs nothing with them itself.
 */
export function deriveSigningSecret(secret: string, kind: 'integration' | 'installation', id: string): string {
  return createHmac('sha256', secret).update(`signing-secret:${kind}:${id}`).digest('hex');
}

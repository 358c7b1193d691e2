// Webhook signatures (docs/webhooks.md, docs/webhooks.md): `t=<unix seconds>,v1=<hex HMAC-SHA256(secret,
// "<t>.<body>")>`. Pure: no clock, no I/O; the caller passes the timestamp so every attempt is signed fresh.
// Never logs or returns a secret.

import { createHmac } from 'node:crypto';

export const SIGNATURE_HEADER = 'X-Platform-Signature';

function assertTimestamp(timestampSeconds: number): void {
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
    throw new TypeError(`timestampSeconds must be a non-negative integer (got ${timestampSeconds})`);
  }
}

/** Lowercase hex HMAC-SHA256 of `<t>.<body>`; the body is signed byte for byte as sent. */
export function computeSignature(secret: string, body: string | Uint8Array, timestampSeconds: number): string {
  assertTimestamp(timestampSeconds);
  const hmac = createHmac('sha256', secret);
  hmac.update(`${timestampSeconds}.`);
  hmac.update(body);
  return hmac.digest('hex');
}

/** The header value for one secret: `t=<t>,v1=<hex>`. */
export function signPayload(secret: string, body: string | Uint8Array, timestampSeconds: number): string {
  return `t=${timestampSeconds},v1=${computeSignature(secret, body, timestampSeconds)}`;
}

/**
 * The header value for every active secret: one `t=` and one `v1=` per secret, current first.
 * During a rotation window both secrets sign, so a receiver holding either one verifies.
 */
export function signatureHeader(
  secrets: readonly string[],
  body: string | Uint8Array,
  timestampSeconds: number,
): string {
  if (secrets.length === 0) throw new TypeError('at least one signing secret is required');
  const signatures = secrets.map((secret) => `v1=${computeSignature(secret, body, timestampSeconds)}`);
  return [`t=${timestampSeconds}`, ...signatures].join(',');
}

// Helpers for people who RECEIVE our webhooks: signature verification and eventId dedupe.
// Runs anywhere with Web Crypto (Node ≥ 18, browsers, our isolates): no node imports, no host code.
// Never trusts a body whose signature did not verify; never compares digests with an early exit.

export interface VerifyOptions {
  /** Maximum distance between `t` and now, either direction (default 300 s). */
  toleranceSeconds?: number;
  /** The receiver's clock in epoch milliseconds (default Date.now()). */
  now?: number;
}

export type VerifyFailure =
  | 'missing_secret'
  | 'missing_header'
  | 'malformed_header'
  | 'missing_timestamp'
  | 'missing_signature'
  | 'timestamp_out_of_tolerance'
  | 'signature_mismatch';

export type VerifyResult = { ok: true; timestamp: number } | { ok: false; reason: VerifyFailure };

const encoder = new TextEncoder();

function parseHeader(header: string): { timestamps: string[]; signatures: string[] } | null {
  const timestamps: string[] = [];
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const item = part.trim();
    if (item === '') continue;
    const equals = item.indexOf('=');
    if (equals <= 0) return null;
    const key = item.slice(0, equals).trim();
    const value = item.slice(equals + 1).trim();
    if (key === 't') timestamps.push(value);
    else if (key === 'v1') signatures.push(value);
    // Other schemes (a future v2, say) are ignored so old receivers keep working.
  }
  return { timestamps, signatures };
}

function hexToBytes(hex: string): Uint8Array | null {
  if (!/^[0-9a-fA-F]*$/.test(hex) || hex.length % 2 !== 0) return null;
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

/** Equal-length inputs are compared without an early exit; the length is public (32 bytes). */
function timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a[i] ^ b[i];
  return difference === 0;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

/**
 * The key of the secret verified last: a receiver checks every delivery against the same one or
 * two secrets, and importing the key each time was a third of a busy receiver's CPU. One entry
 * only, so a receiver never holds keys of secrets it no longer uses.
 */
let lastKey: { secret: string; key: Promise<CryptoKey> } | null = null;

function hmacKey(secret: string): Promise<CryptoKey> {
  if (lastKey !== null && lastKey.secret === secret) return lastKey.key;
  const key = crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, [
    'sign',
  ]);
  lastKey = { secret, key };
  // A failed import is not remembered: the next verification tries again.
  key.catch(() => {
    if (lastKey !== null && lastKey.key === key) lastKey = null;
  });
  return key;
}

async function hmacSha256(secret: string, data: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  const key = await hmacKey(secret);
  return new Uint8Array(await crypto.subtle.sign('HMAC', key, data));
}

/**
 * Verifies `X-Platform-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>…]` against the RAW body
 * (the exact bytes received, before any JSON parsing). Any `v1` matching is enough, so a
 * receiver keeps working while the sender signs with both secrets during a rotation.
 */
export async function verifySignature(
  rawBody: string | Uint8Array,
  header: string | null | undefined,
  secret: string,
  { toleranceSeconds = 300, now = Date.now() }: VerifyOptions = {},
): Promise<VerifyResult> {
  // An unset secret (say, a missing environment variable) must fail closed: Web Crypto would throw
  // on the empty key, and an HMAC keyed with '' is one anyone can compute.
  if (typeof secret !== 'string' || secret === '') return { ok: false, reason: 'missing_secret' };
  if (typeof header !== 'string' || header.trim() === '') return { ok: false, reason: 'missing_header' };
  const parsed = parseHeader(header);
  if (parsed === null) return { ok: false, reason: 'malformed_header' };
  if (parsed.timestamps.length === 0) return { ok: false, reason: 'missing_timestamp' };
  if (parsed.timestamps.length > 1 || !/^\d{1,15}$/.test(parsed.timestamps[0]))
    return { ok: false, reason: 'malformed_header' };
  if (parsed.signatures.length === 0) return { ok: false, reason: 'missing_signature' };
  const timestamp = Number(parsed.timestamps[0]);
  if (Math.abs(Math.floor(now / 1000) - timestamp) > toleranceSeconds)
    return { ok: false, reason: 'timestamp_out_of_tolerance' };
  const body = typeof rawBody === 'string' ? encoder.encode(rawBody) : rawBody;
  const expected = await hmacSha256(secret, concat(encoder.encode(`${timestamp}.`), body));
  let matched = false;
  for (const signature of parsed.signatures) {
    const candidate = hexToBytes(signature);
    // Check every candidate (no early exit) so timing does not reveal which one matched.
    if (candidate !== null && timingSafeEqual(expected, candidate)) matched = true;
  }
  return matched ? { ok: true, timestamp } : { ok: false, reason: 'signature_mismatch' };
}

export interface DedupeOptions {
  /** How long an eventId is remembered (default 2 minutes, as the documented sample). */
  ttlMs?: number;
  /** Clock in epoch milliseconds (default Date.now). */
  now?: () => number;
  /** Oldest ids are forgotten first past this many (bounds memory under a flood). */
  maxEntries?: number;
}

export interface Dedupe {
  /** False the first time an id is seen (and remembers it), true while it is remembered. */
  seen(eventId: string): boolean;
  /** Forgets an id, e.g. when processing failed and the redelivery should be processed. */
  forget(eventId: string): void;
  size(): number;
}

export function createDedupe({
  ttlMs = 120_000,
  now = () => Date.now(),
  maxEntries = 100_000,
}: DedupeOptions = {}): Dedupe {
  // Insertion order = expiry order (constant ttl), so expired ids are always at the front.
  const expiries = new Map<string, number>();
  const prune = (at: number): void => {
    for (const [id, expiresAt] of expiries) {
      if (expiresAt > at && expiries.size <= maxEntries) break;
      expiries.delete(id);
    }
  };
  return {
    seen(eventId) {
      const at = now();
      prune(at);
      if (expiries.has(eventId)) return true;
      expiries.set(eventId, at + ttlMs);
      prune(at);
      return false;
    },
    forget: (eventId) => void expiries.delete(eventId),
    size: () => expiries.size,
  };
}

// Encryption at rest of one stored secret: AES-256-GCM (Node's crypto), a random 96-bit nonce per
// value, and the integration, the secret's name and the key id bound as associated data, so a
// ciphertext moved to another row never decrypts. Pure apart from the nonce; never logs a value.

import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { HOW_TO_PROVIDE_A_KEY, type KeyRing } from './keys.ts';

const NONCE_BYTES = 12;
const TAG_BYTES = 16;
/** Versioned, so a later format can never be mistaken for this one. */
const CONTEXT = 'integration-host/stored-secret/v1';

export interface Sealed {
  keyId: number;
  /** base64 */
  nonce: string;
  /** base64 of the ciphertext followed by the 16-byte tag */
  ciphertext: string;
}

/** Why a stored value cannot be read here: the message names the key id, never the value. */
export class UnreadableSecretError extends Error {}

/** The associated data: names cannot hold NUL (names.ts), so the fields never run into each other. */
function associatedData(integration: string, name: string, keyId: number): Buffer {
  return Buffer.from(`${CONTEXT}\0${integration}\0${name}\0${keyId}`, 'utf8');
}

/** Throws UnreadableSecretError when the ring has no key to encrypt with. */
export function seal(ring: KeyRing, integration: string, name: string, value: string): Sealed {
  const keyId = ring.current;
  const key = keyId === undefined ? undefined : ring.keys.get(keyId);
  if (keyId === undefined || key === undefined)
    throw new UnreadableSecretError(`no secrets key is configured: ${HOW_TO_PROVIDE_A_KEY}`);
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
  cipher.setAAD(associatedData(integration, name, keyId));
  const body = Buffer.concat([cipher.update(value, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return { keyId, nonce: nonce.toString('base64'), ciphertext: body.toString('base64') };
}

/**
 * The value of a sealed row of (integration, name). Throws UnreadableSecretError when the ring
 * lacks its key, or when it does not authenticate (another key under the same id, a row altered
 * or copied from another integration or name). GCM checks the tag in constant time.
 */
export function unseal(ring: KeyRing, integration: string, name: string, sealed: Sealed): string {
  const key = ring.keys.get(sealed.keyId);
  if (key === undefined) {
    const have =
      ring.keys.size === 0
        ? `no key is configured: ${HOW_TO_PROVIDE_A_KEY}`
        : `${ring.source} has key(s) ${[...ring.keys.keys()].sort((a, b) => a - b).join(', ')}`;
    throw new UnreadableSecretError(
      `it was encrypted with key ${sealed.keyId}, which this host does not have (${have})`,
    );
  }
  const nonce = Buffer.from(sealed.nonce, 'base64');
  const body = Buffer.from(sealed.ciphertext, 'base64');
  const refused = () =>
    new UnreadableSecretError(
      `it does not decrypt with key ${sealed.keyId} of ${ring.source}: that key is not the one it was ` +
        `encrypted with, or the stored row was altered or copied from another integration or name`,
    );
  if (nonce.length !== NONCE_BYTES || body.length < TAG_BYTES) throw refused();
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
    decipher.setAAD(associatedData(integration, name, sealed.keyId));
    decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
    const plain = Buffer.concat([decipher.update(body.subarray(0, body.length - TAG_BYTES)), decipher.final()]);
    return plain.toString('utf8');
  } catch {
    throw refused();
  }
}

// Sealing one stored secret: AES-256-GCM with a fresh nonce per value, decryptable only with its
// key and only as the (integration, name) it was sealed for; older keys of the ring still decrypt.
import { describe, expect, it } from 'vitest';
import { seal, unseal, UnreadableSecretError } from '../../../host/secrets/cipher.ts';
import { EMPTY_KEY_RING, parseKeyRing } from '../../../host/secrets/keys.ts';

const K1 = Buffer.alloc(32, 1).toString('base64');
const K2 = Buffer.alloc(32, 2).toString('base64');
const ring1 = parseKeyRing(`1:${K1}`, 'HOST_SECRETS_KEYS');
const ring12 = parseKeyRing(`1:${K1},2:${K2}`, 'HOST_SECRETS_KEYS');
const VALUE = '-----BEGIN PRIVATE KEY-----\nMIIE…ünïcode\0and a NUL\n-----END PRIVATE KEY-----\n';

describe('sealing a stored secret', () => {
  it('round-trips any text and never stores it in the clear', () => {
    const sealed = seal(ring1, 'github-copilot', 'GITHUBCOPILOT_APP_ID', VALUE);
    expect(sealed.keyId).toBe(1);
    expect(Buffer.from(sealed.nonce, 'base64')).toHaveLength(12);
    expect(Buffer.from(sealed.ciphertext, 'base64').toString('latin1')).not.toContain('PRIVATE KEY');
    expect(unseal(ring1, 'github-copilot', 'GITHUBCOPILOT_APP_ID', sealed)).toBe(VALUE);
  });

  it('uses a new nonce for every value, so equal values give different ciphertexts', () => {
    const a = seal(ring1, 'x', 'N', 'same');
    const b = seal(ring1, 'x', 'N', 'same');
    expect(a.nonce).not.toBe(b.nonce);
    expect(a.ciphertext).not.toBe(b.ciphertext);
  });

  it('refuses a ciphertext moved to another integration or name', () => {
    const sealed = seal(ring1, 'gitlab-files', 'GITLAB_CLIENT_SECRET', 'the secret');
    expect(() => unseal(ring1, 'gitlab', 'GITLAB_CLIENT_SECRET', sealed)).toThrow(UnreadableSecretError);
    expect(() => unseal(ring1, 'gitlab-files', 'GITLAB_CLIENT_ID', sealed)).toThrow(
      /copied from another integration or name/,
    );
  });

  it('refuses a flipped bit, a cut tag, a wrong nonce and a key id changed on the row', () => {
    const sealed = seal(ring12, 'x', 'N', 'value');
    const body = Buffer.from(sealed.ciphertext, 'base64');
    body[0] ^= 1;
    expect(() => unseal(ring12, 'x', 'N', { ...sealed, ciphertext: body.toString('base64') })).toThrow(
      UnreadableSecretError,
    );
    expect(() =>
      unseal(ring12, 'x', 'N', {
        ...sealed,
        ciphertext: Buffer.from(sealed.ciphertext, 'base64').subarray(0, 10).toString('base64'),
      }),
    ).toThrow(UnreadableSecretError);
    expect(() => unseal(ring12, 'x', 'N', { ...sealed, nonce: Buffer.alloc(12).toString('base64') })).toThrow(
      UnreadableSecretError,
    );
    expect(() => unseal(ring12, 'x', 'N', { ...sealed, keyId: 1 })).toThrow(/does not decrypt with key 1/);
  });

  it('decrypts with an older key of the ring and encrypts with the newest', () => {
    const old = seal(ring1, 'x', 'N', 'value');
    expect(unseal(ring12, 'x', 'N', old)).toBe('value');
    expect(seal(ring12, 'x', 'N', 'value').keyId).toBe(2);
  });

  it('says which key is missing, or that none is configured, never the value', () => {
    const newer = seal(ring12, 'x', 'N', 'top secret value');
    expect(() => unseal(ring1, 'x', 'N', newer)).toThrow(
      /encrypted with key 2, which this host does not have \(HOST_SECRETS_KEYS has key\(s\) 1\)/,
    );
    expect(() => unseal(EMPTY_KEY_RING, 'x', 'N', newer)).toThrow(/no key is configured: set HOST_SECRETS_KEYS/);
    expect(() => seal(EMPTY_KEY_RING, 'x', 'N', 'v')).toThrow(/no secrets key is configured/);
    try {
      unseal(ring1, 'x', 'N', newer);
    } catch (error) {
      expect((error as Error).message).not.toContain('top secret value');
    }
  });

  it('refuses with a wrong key under the right id', () => {
    const sealed = seal(ring1, 'x', 'N', 'value');
    const impostor = parseKeyRing(`1:${K2}`, 'HOST_SECRETS_KEYS_FILE (/etc/keys)');
    expect(() => unseal(impostor, 'x', 'N', sealed)).toThrow(
      /does not decrypt with key 1 of HOST_SECRETS_KEYS_FILE \(\/etc\/keys\)/,
    );
  });
});

// Signing secrets: generation, rotation window, and their durable store.
import { openDatabase } from '../../../host/store/sqlite/database.ts';
import { describe, expect, it } from 'vitest';
import { activeSigningSecrets, generateSigningSecret, rotateSigningSecrets } from '../../../host/webhooks/secrets.ts';
import { createSigningSecretStore } from '../../../host/store/sqlite/signing-secrets.ts';

const NOW = Date.parse('2026-01-01T00:00:00Z');

describe('generateSigningSecret', () => {
  it('is 32 random bytes in URL-safe base64', () => {
    const secret = generateSigningSecret();
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(secret, 'base64url')).toHaveLength(32);
    expect(generateSigningSecret()).not.toBe(secret);
  });
});

describe('rotateSigningSecrets', () => {
  it('keeps the previous secret signing until the window ends', () => {
    const rotated = rotateSigningSecrets({ current: 'old' }, NOW, 60_000, () => 'new');
    expect(rotated).toEqual({ current: 'new', previous: 'old', previousExpiresAt: '2026-01-01T00:01:00.000Z' });
    expect(activeSigningSecrets(rotated, NOW + 59_999)).toEqual(['new', 'old']);
    expect(activeSigningSecrets(rotated, NOW + 60_000)).toEqual(['new']);
  });

  it('drops the previous secret at once with an empty window', () => {
    expect(rotateSigningSecrets({ current: 'old' }, NOW, 0, () => 'new')).toEqual({ current: 'new' });
  });
});

describe('createSigningSecretStore', () => {
  it('creates, rotates, lists active secrets and removes', async () => {
    const db = openDatabase(':memory:');
    let n = 0;
    const store = createSigningSecretStore(db, () => `secret-${++n}`);
    expect(await store.secretsFor('inst_1', NOW)).toEqual([]);
    expect(await store.rotate('inst_1', NOW)).toBeUndefined();
    expect(await store.create('inst_1')).toBe('secret-1');
    expect(await store.rotate('inst_1', NOW, 1_000)).toBe('secret-2');
    expect(await store.secretsFor('inst_1', NOW)).toEqual(['secret-2', 'secret-1']);
    expect(await store.secretsFor('inst_1', NOW + 1_000)).toEqual(['secret-2']);
    await store.remove('inst_1');
    expect(await store.get('inst_1')).toBeUndefined();
  });
});

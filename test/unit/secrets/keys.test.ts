// The operator's key ring: ID:KEY entries from HOST_SECRETS_KEYS or a key file, the highest id
// encrypting; every mistake refused with a message that names the entry and never its key.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { newKeyLine, parseKeyRing, readKeyRing } from '../../../host/secrets/keys.ts';

const KEY_A = Buffer.alloc(32, 1).toString('base64');
const KEY_B = Buffer.alloc(32, 2).toString('base64url');

describe('the secrets key ring', () => {
  it('takes ID:KEY entries separated by commas, spaces or lines, and encrypts with the highest id', () => {
    const ring = parseKeyRing(`3:${KEY_A}, 12:${KEY_B}\n# retired after the move\n7:${KEY_A}`, 'HOST_SECRETS_KEYS');
    expect([...ring.keys.keys()]).toEqual([3, 12, 7]);
    expect(ring.current).toBe(12);
    expect(ring.keys.get(12)).toEqual(Buffer.alloc(32, 2));
    expect(ring.source).toBe('HOST_SECRETS_KEYS');
  });

  it('refuses malformed entries, short keys, duplicate ids and an empty list, never echoing a key', () => {
    const short = Buffer.alloc(16, 9).toString('base64');
    const cases: [string, RegExp][] = [
      ['', /lists no key/],
      [`one:${KEY_A}`, /entry 1 is not ID:KEY/],
      [`1:${KEY_A},2:${short}`, /key 2 is 16 bytes once decoded from base64; AES-256 needs exactly 32/],
      [`1:${KEY_A} 1:${KEY_B}`, /key id 1 is listed twice/],
      [`0:${KEY_A}`, /key id 0 is not from 1 to/],
      [KEY_A, /entry 1 is not ID:KEY/],
    ];
    for (const [text, message] of cases) {
      let thrown: Error | undefined;
      try {
        parseKeyRing(text, 'HOST_SECRETS_KEYS');
      } catch (error) {
        thrown = error as Error;
      }
      expect(thrown?.message, text).toMatch(message);
      expect(thrown?.message).not.toContain(KEY_A);
      expect(thrown?.message).not.toContain(short);
      expect((thrown as { code?: string }).code).toBe('ERR_OPTIONS_INVALID');
    }
  });

  it('reads the variable, or the key file, or nothing; both at once is refused', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'secrets-keys-'));
    const file = path.join(dir, 'keys');
    writeFileSync(file, `# keys of the integration host\n1:${KEY_A}\n2:${KEY_B}\n`, { mode: 0o600 });
    expect((await readKeyRing({})).current).toBeUndefined();
    expect((await readKeyRing({ HOST_SECRETS_KEYS: '' })).current).toBeUndefined();
    expect((await readKeyRing({ HOST_SECRETS_KEYS: `5:${KEY_A}` })).current).toBe(5);
    const fromFile = await readKeyRing({ HOST_SECRETS_KEYS_FILE: file });
    expect(fromFile.current).toBe(2);
    expect(fromFile.source).toBe(`HOST_SECRETS_KEYS_FILE (${file})`);
    await expect(readKeyRing({ HOST_SECRETS_KEYS: `1:${KEY_A}`, HOST_SECRETS_KEYS_FILE: file })).rejects.toThrow(
      /both set; keep one of them/,
    );
    await expect(readKeyRing({ HOST_SECRETS_KEYS_FILE: path.join(dir, 'missing') })).rejects.toThrow(
      /the key file cannot be read \(ENOENT\)/,
    );
    await expect(readKeyRing({ HOST_SECRETS_KEYS_FILE: dir })).rejects.toThrow(/is a directory, not a regular file/);
  });

  it('makes fresh keys the ring accepts, numbered after the newest', () => {
    const first = newKeyLine();
    const second = newKeyLine(1);
    expect(first).toMatch(/^1:[A-Za-z0-9+/]{43}=$/);
    expect(second).toMatch(/^2:/);
    expect(first.slice(2)).not.toBe(second.slice(2));
    expect(parseKeyRing(`${first},${second}`, 'test').current).toBe(2);
  });
});

// Stored secrets as the operator handles them: set, list (names, when and how, never values),
// unset, the decrypted snapshot a host resolves from, and re-encryption under the newest key.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseKeyRing, EMPTY_KEY_RING, type KeyRing } from '../../../host/secrets/keys.ts';
import { createSecretService } from '../../../host/secrets/service.ts';
import { openSqliteStores } from '../../../host/store/sqlite/open.ts';
import type { HostStores } from '../../../host/store/types.ts';

const K1 = Buffer.alloc(32, 1).toString('base64');
const K2 = Buffer.alloc(32, 2).toString('base64');
const RING_1 = parseKeyRing(`1:${K1}`, 'HOST_SECRETS_KEYS');
const RING_12 = parseKeyRing(`1:${K1},2:${K2}`, 'HOST_SECRETS_KEYS');
const RING_2 = parseKeyRing(`2:${K2}`, 'HOST_SECRETS_KEYS');
let stores: HostStores;
let clock: number;
const serviceWith = (ring: KeyRing) => createSecretService({ store: stores.secrets, ring, now: () => clock });

beforeEach(() => {
  clock = Date.parse('2026-12-01T10:00:00Z');
  stores = openSqliteStores(':memory:');
});
afterEach(() => stores.close());

describe('the secret service', () => {
  it('stores a value sealed, lists it without its value, and resolves it in the snapshot', async () => {
    const service = serviceWith(RING_1);
    const set = await service.set('github-copilot', 'GITHUBCOPILOT_APP_ID', '123456', 'cli');
    expect(set).toEqual({
      integration: 'github-copilot',
      name: 'GITHUBCOPILOT_APP_ID',
      setAt: '2026-12-01T10:00:00.000Z',
      setBy: 'cli',
      keyId: 1,
      readable: true,
      created: true,
    });
    const listed = await service.list('github-copilot');
    expect(listed).toEqual([
      {
        integration: 'github-copilot',
        name: 'GITHUBCOPILOT_APP_ID',
        setAt: '2026-12-01T10:00:00.000Z',
        setBy: 'cli',
        keyId: 1,
        readable: true,
      },
    ]);
    expect(JSON.stringify(listed)).not.toContain('123456');
    expect(JSON.stringify(await stores.secrets.list())).not.toContain('123456');
    const snapshot = await service.snapshot();
    expect(snapshot.byIntegration.get('github-copilot')?.get('GITHUBCOPILOT_APP_ID')).toEqual({ value: '123456' });
  });

  it('replaces a value, recording when and how, and says it was not new', async () => {
    const service = serviceWith(RING_1);
    await service.set('x', 'N', 'first', 'cli');
    clock += 60_000;
    const again = await service.set('x', 'N', 'second', 'console');
    expect(again).toMatchObject({ created: false, setBy: 'console', setAt: '2026-12-01T10:01:00.000Z' });
    expect((await service.snapshot()).byIntegration.get('x')?.get('N')).toEqual({ value: 'second' });
  });

  it('refuses bad names and values with the field named, the value never echoed', async () => {
    const service = serviceWith(RING_1);
    const huge = 'v'.repeat(64 * 1024 + 1);
    const cases: [string, string, unknown, RegExp][] = [
      ['../etc', 'N', 'v', /\/integration: must be an integration name/],
      ['x', '../../N', 'v', /\/name: must be the variable/],
      ['x', 'A-B', 'v', /\/name: must be the variable/],
      ['x', 'N', '', /\/value: must not be empty/],
      ['x', 'N', 42, /\/value: must be a string/],
      ['x', 'N', 'a\ud800b', /lone surrogate/],
      ['x', 'N', huge, /is 65537 bytes; a secret holds at most 65536 bytes/],
    ];
    for (const [integration, name, value, message] of cases) {
      const refusal = service.set(integration, name, value, 'api');
      await expect(refusal, `${integration} ${name}`).rejects.toThrow(message);
      await expect(refusal).rejects.toMatchObject({ code: 'ERR_VALIDATION' });
      await refusal.catch((error: Error) => expect(error.message).not.toContain(huge));
    }
    expect(await stores.secrets.list()).toEqual([]);
  });

  it('refuses to store without a key, saying how to provide one; listing and unsetting still work', async () => {
    await serviceWith(RING_1).set('x', 'N', 'v', 'cli');
    const keyless = serviceWith(EMPTY_KEY_RING);
    await expect(keyless.set('x', 'M', 'v', 'api')).rejects.toMatchObject({
      code: 'ERR_SECRETS_KEY_MISSING',
      message: expect.stringMatching(
        /cannot store secret M of x: no secrets key is configured; set HOST_SECRETS_KEYS=1:<key>.*new-key/,
      ),
    });
    expect(await keyless.list()).toEqual([
      expect.objectContaining({
        name: 'N',
        readable: false,
        problem: expect.stringMatching(/encrypted with key 1, which this host does not have \(no key is configured/),
      }),
    ]);
    expect((await keyless.snapshot()).byIntegration.get('x')?.get('N')).toEqual({
      problem: expect.stringMatching(/key 1/),
    });
    expect(await keyless.unset('x', 'N')).toBe(true);
    expect(await keyless.unset('x', 'N')).toBe(false);
  });

  it('fingerprints each integration by its rows, so a change of one leaves the others equal', async () => {
    const service = serviceWith(RING_1);
    // A value no base64 nonce can contain by chance (a one-letter one did, about one run in five).
    const value = 'the value itself';
    await service.set('a', 'N', value, 'cli');
    await service.set('b', 'N', value, 'cli');
    const before = await service.snapshot();
    await service.set('b', 'N', value, 'cli');
    const after = await service.snapshot();
    expect(after.revision).toBeGreaterThan(before.revision);
    expect(after.fingerprints.get('a')).toBe(before.fingerprints.get('a'));
    expect(after.fingerprints.get('b')).not.toBe(before.fingerprints.get('b'));
    expect(after.fingerprints.get('b')).not.toContain(value);
  });

  it('re-encrypts every value under the newest key; the old key can then be dropped', async () => {
    const old = serviceWith(RING_1);
    await old.set('a', 'N', 'alpha', 'cli');
    await old.set('b', 'M', 'beta', 'api');
    const both = serviceWith(RING_12);
    await both.set('c', 'O', 'gamma', 'console');
    const result = await both.reencrypt();
    expect(result).toEqual({ reencrypted: 2, current: 1, changedMeanwhile: 0, unreadable: [], keyId: 2 });
    expect((await both.list()).map((entry) => [entry.name, entry.keyId, entry.setBy, entry.setAt])).toEqual([
      ['N', 2, 'cli', '2026-12-01T10:00:00.000Z'],
      ['M', 2, 'api', '2026-12-01T10:00:00.000Z'],
      ['O', 2, 'console', '2026-12-01T10:00:00.000Z'],
    ]);
    const newOnly = await serviceWith(RING_2).snapshot();
    expect(
      [...newOnly.byIntegration].map(([integration, values]) => [integration, Object.fromEntries(values)]),
    ).toEqual([
      ['a', { N: { value: 'alpha' } }],
      ['b', { M: { value: 'beta' } }],
      ['c', { O: { value: 'gamma' } }],
    ]);
    expect(await both.reencrypt()).toMatchObject({ reencrypted: 0, current: 3 });
  });

  it('leaves values it cannot decrypt as they are, and names them', async () => {
    await serviceWith(RING_1).set('a', 'N', 'alpha', 'cli');
    const result = await serviceWith(RING_2).reencrypt();
    expect(result.reencrypted).toBe(0);
    expect(result.unreadable).toEqual([
      { integration: 'a', name: 'N', problem: expect.stringMatching(/key 1, which this host does not have/) },
    ]);
    expect((await serviceWith(RING_1).snapshot()).byIntegration.get('a')?.get('N')).toEqual({ value: 'alpha' });
    await expect(serviceWith(EMPTY_KEY_RING).reencrypt()).rejects.toMatchObject({ code: 'ERR_SECRETS_KEY_MISSING' });
  });
});

// Huge inputs and unbounded work through SubtleCrypto: more bytes than one call may carry, huge
// strings and lists, and the parameters whose cost the caller picks (an RSA modulus of a million
// bits, a billion PBKDF2 iterations, a PBKDF2 output of a billion bits), first at the bridge
// function, then from guest code. Each is refused at once, as data, before any copy reaches Node's
// WebCrypto or any work starts on the worker's thread pool; from a guest, oversized arguments
// are refused in the isolate, before they are copied out of it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUBTLE_LIMITS } from '../../sandbox-api/runtime/contract.ts';
import { workerCryptoLoad } from '../../host/bridge/webcrypto.ts';
import { realmSubtle, type RealmSubtle } from '../helpers/realm-subtle.ts';
import { Harness } from '../unit/sandbox-api/harness.ts';

let realm: RealmSubtle;
let password = 0;
beforeAll(async () => {
  realm = await realmSubtle();
  const answer = await realm.subtle(
    'importKey',
    ['raw', new Uint8Array(8), 'PBKDF2', false, ['deriveBits', 'deriveKey']],
    [],
  );
  if (!answer.ok || answer.value.kind !== 'key') throw new Error('no key');
  password = answer.value.key.handle;
});
afterAll(() => realm?.isolate.dispose());

const PBKDF2 = (iterations: number) => ({ name: 'PBKDF2', salt: new Uint8Array(8), iterations, hash: 'SHA-256' });
const RSA = (modulusLength: number) => ({
  name: 'RSA-PSS',
  modulusLength,
  publicExponent: new Uint8Array([1, 0, 1]),
  hash: 'SHA-256',
});

/** [what, operation, args, released, the code refused with] */
const CALLS: [string, string, unknown[], unknown[], string][] = [
  [
    'data one byte past the bound',
    'digest',
    ['SHA-256', new Uint8Array(SUBTLE_LIMITS.inputBytes + 1)],
    [],
    'QuotaExceededError',
  ],
  [
    'two buffers past the bound together',
    'verify',
    ['HMAC', null, new Uint8Array(SUBTLE_LIMITS.inputBytes / 2), new Uint8Array(SUBTLE_LIMITS.inputBytes / 2 + 1)],
    [],
    'QuotaExceededError',
  ],
  ['an algorithm name of 20 MB', 'digest', ['S'.repeat(20 * 1024 * 1024), new Uint8Array(1)], [], 'QuotaExceededError'],
  [
    'a JWK member of 20 MB',
    'importKey',
    ['jwk', { kty: 'oct', k: 'A'.repeat(20 * 1024 * 1024) }, 'AES-GCM', false, ['encrypt']],
    [],
    'QuotaExceededError',
  ],
  ['100,000 usages', 'generateKey', ['Ed25519', false, Array(100_000).fill('sign')], [], 'TypeError'],
  [
    'more released handles than a table holds',
    'digest',
    ['SHA-256', new Uint8Array(1)],
    Array.from({ length: SUBTLE_LIMITS.keys + 1 }, (_, i) => i + 1),
    'TypeError',
  ],
  [
    'an RSA modulus of a million bits',
    'generateKey',
    [RSA(1_000_000), false, ['sign', 'verify']],
    [],
    'OperationError',
  ],
  [
    'an RSA modulus just past the bound',
    'generateKey',
    [RSA(SUBTLE_LIMITS.rsaModulusBits + 8), false, ['sign', 'verify']],
    [],
    'OperationError',
  ],
  ['a billion PBKDF2 iterations', 'deriveBits', [PBKDF2(1e9), 0, 256], [], 'OperationError'],
  ['a billion PBKDF2 bits', 'deriveBits', [PBKDF2(1), 0, 1e9], [], 'OperationError'],
  [
    'a PBKDF2-derived HMAC key of a billion bits',
    'deriveKey',
    [PBKDF2(1), 0, { name: 'HMAC', hash: 'SHA-256', length: 1e9 }, false, ['sign']],
    [],
    'OperationError',
  ],
];

describe('huge inputs at the SubtleCrypto bridge', () => {
  it.each(CALLS)('refuses %s at once, starting no work', async (_what, operation, args, released, code) => {
    const withKey = args.map((value, index) => (index === 1 && value === 0 ? password : value));
    const pending = realm.subtle(operation as never, withKey, released as never);
    // Refused before any call reached the thread pool (which is where the work would wait or run).
    expect(workerCryptoLoad()).toEqual({ running: 0, waiting: 0 });
    const answer = await pending;
    expect(answer).toMatchObject({ ok: false, code });
  });

  it('still does work just inside the bounds', async () => {
    expect(await realm.subtle('digest', ['SHA-256', new Uint8Array(SUBTLE_LIMITS.inputBytes - 16)], [])).toMatchObject({
      ok: true,
    });
    expect(await realm.subtle('deriveBits', [PBKDF2(1_000), password, SUBTLE_LIMITS.pbkdf2Bits], [])).toMatchObject({
      ok: true,
    });
  });
});

describe('huge inputs from guest code', () => {
  it('are refused in the isolate, before being copied out, and the isolate carries on', async () => {
    const harness = await Harness.create();
    try {
      const result = await harness.evaluate<string>(`(async () => {
        const s = crypto.subtle;
        const fail = (promise) => promise.then(() => 'none', (error) => error.name);
        const huge = new Uint8Array(${SUBTLE_LIMITS.inputBytes + 1});
        const names = [
          await fail(s.digest('SHA-256', huge)),
          await fail(s.digest({ name: 'SHA-256', ignored: huge }, huge.subarray(0, 1))),
          await fail(s.importKey('jwk', { kty: 'oct', k: 'A'.repeat(${SUBTLE_LIMITS.inputBytes + 1}) }, 'AES-GCM',
            false, ['encrypt'])),
          await fail(s.generateKey({ name: 'HMAC', hash: 'SHA-256' }, true, Array(5000).fill('sign'))),
          await fail(s.generateKey({ name: 'HMAC', hash: 'SHA-256' }, true, Array.from({ length: 17 }, (_,
            i) => 'usage' + i))),
        ];
        names.push(await fail(s.digest('SHA-256', new Uint8Array(1))));
        return JSON.stringify(names);
      })()`);
      expect(JSON.parse(result)).toEqual([
        'QuotaExceededError',
        'none',
        'QuotaExceededError',
        'TypeError',
        'TypeError',
        'none',
      ]);
      // The member no algorithm defines was never copied; the oversized calls never left the isolate.
      expect(harness.subtleCalls).toEqual(['digest', 'digest']);
    } finally {
      harness.dispose();
    }
  });
});

// Wrong types at the SubtleCrypto bridge: a realm's primitive called as a hostile runtime could
// (unknown methods, prototype names, arguments of every wrong shape, members smuggled into
// dictionaries, released handles that are not handles), and guest code passing what no copy can
// carry (symbols, throwing getters, proxies, revoked proxies, endless iterators). The primitive
// always answers as data, refusing before Node's WebCrypto sees anything off-shape; the guest
// gets a rejected promise with a TypeError or DOMException of its own realm.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realmSubtle, type RealmSubtle } from '../helpers/realm-subtle.ts';
import { Harness } from '../unit/sandbox-api/harness.ts';

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
let realm: RealmSubtle;
let key = 0;
beforeAll(async () => {
  realm = await realmSubtle();
  const answer = await realm.subtle(
    'importKey',
    ['raw', bytes('key'), { name: 'HMAC', hash: 'SHA-256' }, true, ['sign']],
    [],
  );
  if (!answer.ok || answer.value.kind !== 'key') throw new Error('no key');
  key = answer.value.key.handle;
});
afterAll(() => realm?.isolate.dispose());

const HMAC = { name: 'HMAC', hash: 'SHA-256' };
const smuggled = JSON.parse('{"name":"HMAC","hash":"SHA-256","__proto__":{"polluted":true}}') as unknown;

/** [what, operation, args, released]: each must be refused as data. */
const CALLS: [string, unknown, unknown, unknown][] = [
  ['an unknown method', 'generateKeyPair', [], []],
  ['a prototype name as the method', '__proto__', [], []],
  ['a method that is not a string', 7, [], []],
  ['arguments that are not a list', 'digest', { 0: 'SHA-256', length: 1 }, []],
  ['more arguments than the method has', 'digest', ['SHA-256', bytes('x'), 1], []],
  ['an algorithm that is a number', 'digest', [256, bytes('x')], []],
  ['an algorithm that is a list', 'digest', [['SHA-256'], bytes('x')], []],
  ['an unknown algorithm member', 'sign', [{ name: 'HMAC', callback: 'x' }, key, bytes('x')], []],
  ['an own __proto__ member', 'sign', [smuggled, key, bytes('x')], []],
  ['a name that is not a string', 'digest', [{ name: { toString: 'SHA-256' } }, bytes('x')], []],
  [
    'a hash inside a hash',
    'importKey',
    ['raw', bytes('k'), { name: 'HMAC', hash: { name: 'SHA-256', hash: 'SHA-1' } }, false, ['sign']],
    [],
  ],
  [
    'a number member that is an object',
    'generateKey',
    [{ name: 'AES-GCM', length: { valueOf: 256 } }, false, ['encrypt']],
    [],
  ],
  ['bytes that are a list', 'digest', ['SHA-256', [1, 2, 3]], []],
  ['bytes that are an object', 'sign', [HMAC, key, { byteLength: 3 }], []],
  ['a key that is a string', 'sign', ['HMAC', String(key), bytes('x')], []],
  ['a key that is a fraction', 'sign', ['HMAC', key + 0.5, bytes('x')], []],
  ['a key that is negative', 'sign', ['HMAC', -key, bytes('x')], []],
  ['a key past the safe integers', 'sign', ['HMAC', 2 ** 60, bytes('x')], []],
  ['a key that is a dictionary', 'sign', ['HMAC', { handle: key }, bytes('x')], []],
  ['a public key that is a string', 'deriveBits', [{ name: 'X25519', public: 'key' }, key, 256], []],
  ['extractable that is not a boolean', 'generateKey', [HMAC, 'yes', ['sign']], []],
  ['usages that are not a list', 'generateKey', [HMAC, true, 'sign'], []],
  ['usages that are numbers', 'generateKey', [HMAC, true, [1, 2]], []],
  ['a format that is not a string', 'exportKey', [1, key], []],
  [
    'a JWK with an unknown member',
    'importKey',
    ['jwk', { kty: 'oct', k: 'AAAA', evil: 'x' }, HMAC, false, ['sign']],
    [],
  ],
  [
    'a JWK ext that is a string',
    'importKey',
    ['jwk', { kty: 'oct', k: 'AAAA', ext: 'true' }, HMAC, false, ['sign']],
    [],
  ],
  [
    'JWK key_ops that are not strings',
    'importKey',
    ['jwk', { kty: 'oct', k: 'AAAA', key_ops: [1] }, HMAC, false, ['sign']],
    [],
  ],
  [
    'a JWK oth entry with an unknown member',
    'importKey',
    ['jwk', { kty: 'RSA', oth: [{ r: 'x', evil: 'y' }] }, 'RSA-OAEP', false, ['decrypt']],
    [],
  ],
  [
    'a deriveBits length that is an object',
    'deriveBits',
    [{ name: 'HKDF', hash: 'SHA-256', salt: bytes(''), info: bytes('') }, key, { n: 1 }],
    [],
  ],
  ['released handles that are not a list', 'digest', ['SHA-256', bytes('x')], 'all'],
  ['released handles that are strings', 'digest', ['SHA-256', bytes('x')], ['1']],
  ['released handles that are negative', 'digest', ['SHA-256', bytes('x')], [-1]],
];

describe('wrong types at the SubtleCrypto bridge', () => {
  it.each(CALLS)('refuses %s as data, before any work', async (_what, operation, args, released) => {
    const answer = await realm.subtle(operation as never, args as never, released as never);
    expect(answer.ok).toBe(false);
    if (answer.ok) return;
    expect(['TypeError', 'NotSupportedError']).toContain(answer.code);
    expect(answer.message).not.toMatch(/\/(work|srv|tmp|home)\/|\n\s*at |node:/);
    expect(Object.keys(answer).sort()).toEqual(['code', 'message', 'ok']);
  });

  it('still serves the realm afterwards, its key intact', async () => {
    expect(await realm.subtle('sign', ['HMAC', key, bytes('x')], [])).toMatchObject({
      ok: true,
      value: { kind: 'bytes' },
    });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('gives guest code rejections of its own realm for values no copy can carry', async () => {
    const harness = await Harness.create();
    try {
      const result = await harness.evaluate<string>(`(async () => {
        const s = crypto.subtle;
        const outcome = (call) => { try { return call().then(() => 'resolved', (error) => [error.name,
          error instanceof Error, error.constructor === TypeError || error.constructor === DOMException]);
          } catch (error) { return 'threw'; } };
        const throwing = { get name() { throw new RangeError('from a getter'); } };
        const revocable = Proxy.revocable({}, {}); revocable.revoke();
        const endless = { *[Symbol.iterator]() { for (;;) yield 'sign'; } };
        const cyclic = { name: 'HMAC' }; cyclic.hash = cyclic;
        return JSON.stringify([
          await outcome(() => s.digest(Symbol('SHA-256'), new Uint8Array(1))),
          await outcome(() => s.digest({ name: Symbol('x') }, new Uint8Array(1))),
          await outcome(() => s.digest(throwing, new Uint8Array(1))),
          await outcome(() => s.digest(revocable.proxy, new Uint8Array(1))),
          await outcome(() => s.generateKey({ name: 'HMAC', hash: 'SHA-256' }, true, endless)),
          await outcome(() => s.generateKey({ name: 'AES-GCM', length: 10n }, true, ['encrypt'])),
          await outcome(() => s.importKey('raw', new Uint8Array(4), cyclic, true, ['sign'])),
          await outcome(() => s.sign('HMAC', new Proxy({}, { get: () => { throw new Error('trap'); } }),
            new Uint8Array(1))),
        ]);
      })()`);
      expect(JSON.parse(result)).toEqual([
        ['TypeError', true, true],
        ['TypeError', true, true],
        ['RangeError', true, false],
        ['TypeError', true, true],
        ['TypeError', true, true],
        ['TypeError', true, true],
        ['NotSupportedError', true, true],
        ['TypeError', true, true],
      ]);
      // Only the calls whose arguments could be copied reached the host.
      expect(harness.subtleCalls).toEqual(['importKey', 'sign']);
    } finally {
      harness.dispose();
    }
  });
});

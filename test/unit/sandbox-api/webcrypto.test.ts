// SubtleCrypto in a real isolate, computed by the host's WebCrypto across the bridge: every
// algorithm of the standard checked against Node's WebCrypto on the host, the interfaces as the
// standard names them, CryptoKeys that hide their handle, copies made at the call, errors of the
// guest's realm, the module loaded only on first use, and collected keys released on the host.
import { webcrypto } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SUBTLE_LIMITS } from '../../../sandbox-api/runtime/contract.ts';
import { Harness } from './harness.ts';

const { subtle } = webcrypto;
let harness: Harness;
beforeEach(async () => {
  harness = await Harness.create();
});
afterEach(() => harness.dispose());

const run = async <T>(body: string): Promise<T> =>
  JSON.parse(await harness.evaluate<string>(`(async () => JSON.stringify(await (async () => { ${body} })()))()`));
const hex = (buffer: ArrayBuffer | Uint8Array): string =>
  Buffer.from(buffer instanceof Uint8Array ? buffer : new Uint8Array(buffer)).toString('hex');
const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const fromHex = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'hex'));

/** Guest helpers: hex of an ArrayBuffer, bytes of text, and an error's name (or 'none'). */
const PRELUDE = `
  const hex = (buffer) => [...new Uint8Array(buffer)].map((b) => b.toString(16).padStart(2, '0')).join('');
  const bytes = (text) => new TextEncoder().encode(text);
  const fail = (promise) => promise.then(() => 'none', (error) => error.name);
  const s = crypto.subtle;`;

describe('SubtleCrypto by the host', () => {
  it('digests, MACs, encrypts and derives exactly as Node WebCrypto does', async () => {
    const result = await run<Record<string, string>>(`${PRELUDE}
      const out = {};
      for (const hash of ['SHA-1', 'SHA-256', 'SHA-384', 'SHA-512']) out[hash] = hex(await s.digest(hash,
        bytes('abc')));
      const hmac = await s.importKey('raw', bytes('key'), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);
      out.hmac = hex(await s.sign('HMAC', hmac, bytes('data')));
      out.hmacVerified = String(await s.verify('HMAC', hmac, await s.sign('HMAC', hmac, bytes('data')), bytes('data')));
      const aesKey = new Uint8Array(32).fill(7);
      const iv = new Uint8Array(16).fill(1);
      for (const [name, params] of [['AES-GCM', { iv: iv.subarray(0, 12), additionalData: bytes('ad') }], ['AES-CBC', {
        iv }], ['AES-CTR', { counter: iv, length: 64 }]]) {
        const key = await s.importKey('raw', aesKey, name, true, ['encrypt', 'decrypt']);
        const sealed = await s.encrypt({ name, ...params }, key, bytes('secret message'));
        out[name] = hex(sealed);
        out[name + ' back'] = new TextDecoder().decode(await s.decrypt({ name, ...params }, key, sealed));
      }
      const kek = await s.importKey('raw', aesKey, 'AES-KW', false, ['wrapKey', 'unwrapKey']);
      const toWrap = await s.importKey('raw', new Uint8Array(16).fill(9), 'AES-GCM', true, ['encrypt']);
      const wrapped = await s.wrapKey('raw', toWrap, kek, 'AES-KW');
      out.kw = hex(wrapped);
      out.unwrapped = hex(await s.exportKey('raw', await s.unwrapKey('raw', wrapped, kek, 'AES-KW', 'AES-GCM', true,
        ['encrypt'])));
      const pbkdf2 = await s.importKey('raw', bytes('password'), 'PBKDF2', false, ['deriveBits', 'deriveKey']);
      out.pbkdf2 = hex(await s.deriveBits({ name: 'PBKDF2', salt: bytes('salt'), iterations: 1000, hash: 'SHA-256' },
        pbkdf2, 256));
      const derived = await s.deriveKey({ name: 'PBKDF2', salt: bytes('salt'), iterations: 1000, hash: 'SHA-256' },
        pbkdf2, { name: 'AES-GCM', length: 256 }, true, ['encrypt']);
      out.pbkdf2Key = hex(await s.exportKey('raw', derived));
      const hkdf = await s.importKey('raw', bytes('input key'), 'HKDF', false, ['deriveBits']);
      out.hkdf = hex(await s.deriveBits({ name: 'HKDF', hash: 'SHA-512', salt: bytes('salt'), info: bytes('info') },
        hkdf, 512));
      return out;`);
    const expected: Record<string, string> = {};
    for (const hash of ['SHA-1', 'SHA-256', 'SHA-384', 'SHA-512'])
      expected[hash] = hex(await subtle.digest(hash, bytes('abc')));
    const hmac = await subtle.importKey('raw', bytes('key'), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    expected.hmac = hex(await subtle.sign('HMAC', hmac, bytes('data')));
    const aesKey = new Uint8Array(32).fill(7);
    const iv = new Uint8Array(16).fill(1);
    const ciphers: [string, object][] = [
      ['AES-GCM', { iv: iv.subarray(0, 12), additionalData: bytes('ad') }],
      ['AES-CBC', { iv }],
      ['AES-CTR', { counter: iv, length: 64 }],
    ];
    for (const [name, params] of ciphers) {
      const key = await subtle.importKey('raw', aesKey, name, false, ['encrypt']);
      expected[name] = hex(
        await subtle.encrypt({ name, ...params } as AlgorithmIdentifier, key, bytes('secret message')),
      );
    }
    const kek = await subtle.importKey('raw', aesKey, 'AES-KW', false, ['wrapKey']);
    const toWrap = await subtle.importKey('raw', new Uint8Array(16).fill(9), 'AES-GCM', true, ['encrypt']);
    expected.kw = hex(await subtle.wrapKey('raw', toWrap, kek, 'AES-KW'));
    const pbkdf2 = await subtle.importKey('raw', bytes('password'), 'PBKDF2', false, ['deriveBits']);
    expected.pbkdf2 = hex(
      await subtle.deriveBits({ name: 'PBKDF2', salt: bytes('salt'), iterations: 1000, hash: 'SHA-256' }, pbkdf2, 256),
    );
    const hkdf = await subtle.importKey('raw', bytes('input key'), 'HKDF', false, ['deriveBits']);
    expected.hkdf = hex(
      await subtle.deriveBits({ name: 'HKDF', hash: 'SHA-512', salt: bytes('salt'), info: bytes('info') }, hkdf, 512),
    );
    expect(result).toEqual({
      ...expected,
      hmacVerified: 'true',
      'AES-GCM back': 'secret message',
      'AES-CBC back': 'secret message',
      'AES-CTR back': 'secret message',
      unwrapped: '09'.repeat(16),
      pbkdf2Key: expected.pbkdf2,
    });
  });

  it('generates RSA, EC, Ed25519 and X25519 keys whose signatures, ciphertexts and secrets Node accepts', async () => {
    const result = await run<Record<string, Record<string, unknown>>>(`${PRELUDE}
      const out = {};
      const rsa = { modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' };
      const signers = [
        [{ name: 'RSASSA-PKCS1-v1_5', ...rsa }, 'RSASSA-PKCS1-v1_5'],
        [{ name: 'RSA-PSS', ...rsa }, { name: 'RSA-PSS', saltLength: 32 }],
        [{ name: 'ECDSA', namedCurve: 'P-384' }, { name: 'ECDSA', hash: 'SHA-384' }],
        ['Ed25519', 'Ed25519'],
      ];
      for (const [generate, params] of signers) {
        const pair = await s.generateKey(generate, false, ['sign', 'verify']);
        const signature = await s.sign(params, pair.privateKey, bytes('signed'));
        out[pair.privateKey.algorithm.name] = {
          spki: hex(await s.exportKey('spki', pair.publicKey)), signature: hex(signature),
          verified: await s.verify(params, pair.publicKey, signature, bytes('signed')),
          algorithm: pair.privateKey.algorithm, types: [pair.publicKey.type, pair.privateKey.type],
          usages: [pair.publicKey.usages, pair.privateKey.usages], privateHidden: await fail(s.exportKey('pkcs8',
            pair.privateKey)),
        };
      }
      const oaep = await s.generateKey({ name: 'RSA-OAEP', ...rsa }, true, ['encrypt', 'decrypt']);
      out.oaep = { pkcs8: hex(await s.exportKey('pkcs8', oaep.privateKey)), sealed: hex(await s.encrypt({
        name: 'RSA-OAEP', label: bytes('l') }, oaep.publicKey, bytes('for the host'))) };
      for (const [generate, params] of [[{ name: 'ECDH', namedCurve: 'P-256' }, 'ECDH'], ['X25519', 'X25519']]) {
        const mine = await s.generateKey(generate, true, ['deriveBits', 'deriveKey']);
        const theirs = await s.generateKey(generate, true, ['deriveBits']);
        const shared = await s.deriveBits({ name: params, public: theirs.publicKey }, mine.privateKey, null);
        const jwk = await s.exportKey('jwk', mine.privateKey);
        out[params] = { shared: hex(shared), mine: jwk, theirs: await s.exportKey('jwk', theirs.publicKey),
          key: (await s.deriveKey({ name: params, public: theirs.publicKey }, mine.privateKey, { name: 'AES-GCM',
            length: 128 }, false, ['encrypt'])).algorithm };
      }
      return out;`);
    for (const [name, params] of [
      ['RSASSA-PKCS1-v1_5', 'RSASSA-PKCS1-v1_5'],
      ['RSA-PSS', { name: 'RSA-PSS', saltLength: 32 }],
      ['ECDSA', { name: 'ECDSA', hash: 'SHA-384' }],
      ['Ed25519', 'Ed25519'],
    ] as const) {
      const entry = result[name];
      const imported =
        name === 'ECDSA' ? { name, namedCurve: 'P-384' } : name === 'Ed25519' ? name : { name, hash: 'SHA-256' };
      const publicKey = await subtle.importKey('spki', fromHex(entry.spki as string), imported, false, ['verify']);
      expect(await subtle.verify(params, publicKey, fromHex(entry.signature as string), bytes('signed')), name).toBe(
        true,
      );
      expect(entry).toMatchObject({
        verified: true,
        types: ['public', 'private'],
        usages: [['verify'], ['sign']],
        privateHidden: 'InvalidAccessError',
      });
    }
    expect(result['RSA-PSS'].algorithm).toEqual({
      name: 'RSA-PSS',
      modulusLength: 2048,
      publicExponent: { 0: 1, 1: 0, 2: 1 },
      hash: { name: 'SHA-256' },
    });
    expect(result.ECDSA.algorithm).toEqual({ name: 'ECDSA', namedCurve: 'P-384' });
    const oaepKey = await subtle.importKey(
      'pkcs8',
      fromHex(result.oaep.pkcs8 as string),
      { name: 'RSA-OAEP', hash: 'SHA-256' },
      false,
      ['decrypt'],
    );
    expect(
      new TextDecoder().decode(
        await subtle.decrypt({ name: 'RSA-OAEP', label: bytes('l') }, oaepKey, fromHex(result.oaep.sealed as string)),
      ),
    ).toBe('for the host');
    for (const [name, algorithm] of [
      ['ECDH', { name: 'ECDH', namedCurve: 'P-256' }],
      ['X25519', 'X25519'],
    ] as const) {
      const entry = result[name];
      const mine = await subtle.importKey('jwk', entry.mine as JsonWebKey, algorithm, false, ['deriveBits']);
      const theirs = await subtle.importKey('jwk', entry.theirs as JsonWebKey, algorithm, false, []);
      expect(hex(await subtle.deriveBits({ name, public: theirs } as never, mine, 256))).toBe(entry.shared);
      expect(entry.key).toEqual({ name: 'AES-GCM', length: 128 });
    }
  });

  it("copies every BufferSource when called, so later changes to the caller's buffers change nothing", async () => {
    const result = await run<string[]>(`${PRELUDE}
      const data = bytes('abc');
      const digest = s.digest('SHA-256', data);
      data[0] = 0;
      const key = await s.importKey('raw', bytes('key'), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
      const buffer = bytes('data').buffer;
      const signing = s.sign('HMAC', key, buffer);
      new Uint8Array(buffer).fill(0);
      return [hex(await digest), hex(await signing)];`);
    const key = await subtle.importKey('raw', bytes('key'), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    expect(result).toEqual([
      hex(await subtle.digest('SHA-256', bytes('abc'))),
      hex(await subtle.sign('HMAC', key, bytes('data'))),
    ]);
  });

  it("rejects with fresh errors of the guest's realm, named as the standard names them", async () => {
    const result = await run<Record<string, unknown>>(`${PRELUDE}
      const verifyOnly = await s.importKey('raw', bytes('k'), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
      const aes = await s.generateKey({ name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt']);
      const caught = await s.digest('MD5', bytes('x')).catch((error) => error);
      return {
        unknown: await fail(s.digest('MD5', bytes('x'))),
        experimental: [await fail(s.digest('SHA3-256', bytes('x'))), await fail(s.generateKey('Ed448', false,
          ['sign'])), await fail(s.generateKey('ML-DSA-44', false, ['sign']))],
        notBytes: await fail(s.digest('SHA-256', 'text')),
        notAKey: await fail(s.sign('HMAC', { type: 'secret' }, bytes('x'))),
        tooFewArguments: await fail(s.sign('HMAC')),
        emptyUsages: await fail(s.importKey('raw', bytes('k'), { name: 'HMAC', hash: 'SHA-256' }, false, [])),
        badUsage: await fail(s.generateKey({ name: 'AES-GCM', length: 256 }, false, ['bogus'])),
        wrongUsage: await fail(s.sign('HMAC', verifyOnly, bytes('x'))),
        notExtractable: await fail(s.exportKey('raw', verifyOnly)),
        badKeyData: await fail(s.importKey('pkcs8', new Uint8Array(10), { name: 'ECDSA', namedCurve: 'P-256' }, false,
          ['sign'])),
        badCiphertext: await fail(s.decrypt({ name: 'AES-GCM', iv: new Uint8Array(12) }, aes, new Uint8Array(32))),
        realm: [caught instanceof DOMException, caught instanceof Error, caught.code, Object.keys(caught).length,
          /node:|internal|host/.test(caught.stack)],
      };`);
    expect(result).toEqual({
      unknown: 'NotSupportedError',
      experimental: ['NotSupportedError', 'NotSupportedError', 'NotSupportedError'],
      notBytes: 'TypeError',
      notAKey: 'TypeError',
      tooFewArguments: 'TypeError',
      emptyUsages: 'SyntaxError',
      badUsage: 'TypeError',
      wrongUsage: 'InvalidAccessError',
      notExtractable: 'InvalidAccessError',
      badKeyData: 'DataError',
      badCiphertext: 'OperationError',
      realm: [true, true, 9, 0, false],
    });
  });

  it('keeps the bounds on work and input a guest may ask of the host', async () => {
    const result = await run<string[]>(`${PRELUDE}
      const password = await s.importKey('raw', bytes('pw'), 'PBKDF2', false, ['deriveBits']);
      return [
        await fail(s.generateKey({ name: 'RSA-PSS', modulusLength: ${SUBTLE_LIMITS.rsaModulusBits * 2},
          publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' }, false, ['sign'])),
        await fail(s.deriveBits({ name: 'PBKDF2', salt: bytes('s'), iterations: ${SUBTLE_LIMITS.pbkdf2Iterations + 1},
          hash: 'SHA-256' }, password, 256)),
        await fail(s.deriveBits({ name: 'PBKDF2', salt: bytes('s'), iterations: 1, hash: 'SHA-256' }, password,
          ${SUBTLE_LIMITS.pbkdf2Bits + 8})),
        await fail(s.digest('SHA-256', new Uint8Array(${SUBTLE_LIMITS.inputBytes + 1}))),
        await fail(s.digest('SHA-256', new Uint8Array(${SUBTLE_LIMITS.inputBytes - 1024}))),
      ];`);
    expect(result).toEqual(['OperationError', 'OperationError', 'OperationError', 'QuotaExceededError', 'none']);
  });
});

describe('the SubtleCrypto and CryptoKey interfaces', () => {
  it('are named and tagged as the standard spells them, and cannot be constructed', async () => {
    const result = await run<unknown[]>(`
      const key = await crypto.subtle.generateKey({ name: 'HMAC', hash: 'SHA-256' }, true, ['sign']);
      const illegal = (C) => { try { new C(); return 'constructed'; } catch (error) { return error.name; } };
      return [
        [Crypto.name, SubtleCrypto.name, CryptoKey.name],
        [String(crypto), String(crypto.subtle), Object.prototype.toString.call(key)],
        [illegal(Crypto), illegal(SubtleCrypto), illegal(CryptoKey)],
        [crypto instanceof Crypto, crypto.subtle instanceof SubtleCrypto, key instanceof CryptoKey,
          crypto.subtle === crypto.subtle],
        ['encrypt', 'sign', 'verify', 'digest', 'generateKey', 'deriveKey', 'deriveBits', 'importKey', 'exportKey',
          'wrapKey', 'unwrapKey'].map((m) => SubtleCrypto.prototype[m].length),
        Object.getOwnPropertyNames(CryptoKey.prototype).sort(),
      ];`);
    expect(result).toEqual([
      ['Crypto', 'SubtleCrypto', 'CryptoKey'],
      ['[object Crypto]', '[object SubtleCrypto]', '[object CryptoKey]'],
      ['TypeError', 'TypeError', 'TypeError'],
      [true, true, true, true],
      [3, 3, 4, 2, 3, 5, 2, 5, 2, 4, 7],
      ['algorithm', 'constructor', 'extractable', 'type', 'usages'],
    ]);
  });

  it('are frozen once loaded, like the built-ins, so no dispatch can change them for the next', async () => {
    const result = await run<unknown[]>(`
      const subtle = crypto.subtle;
      const targets = [Crypto, Crypto.prototype, crypto, SubtleCrypto, SubtleCrypto.prototype, subtle, CryptoKey,
        CryptoKey.prototype];
      const attempts = [
        () => { 'use strict'; SubtleCrypto.prototype.sign = async () => new ArrayBuffer(0); },
        () => { Object.defineProperty(CryptoKey.prototype, 'usages', { get: () => ['sign'] }); },
        () => { 'use strict'; subtle.digest = async () => new ArrayBuffer(0); },
        () => { Object.setPrototypeOf(subtle, {}); },
      ].map((attempt) => { try { attempt(); return 'changed'; } catch (error) { return error.name; } });
      return [targets.map((target) => Object.isFrozen(target)), attempts];`);
    expect(result).toEqual([Array(8).fill(true), ['TypeError', 'TypeError', 'TypeError', 'TypeError']]);
  });

  it('reject a call on another receiver instead of throwing', async () => {
    const result = await run<string[]>(`
      const digest = crypto.subtle.digest;
      const outcome = (call) => { try { return call().then(() => 'resolved', (error) => 'rejected ' + error.name);
        } catch (error) { return 'threw ' + error.name; } };
      return [await outcome(() => digest('SHA-256', new Uint8Array(1))), await outcome(() => digest.call({}, 'SHA-256',
        new Uint8Array(1)))];`);
    expect(result).toEqual(['rejected TypeError', 'rejected TypeError']);
  });

  it("show a key's cached algorithm and usages, which a guest may change without changing the key", async () => {
    const result = await run<unknown[]>(`
      const key = await crypto.subtle.importKey('raw', new Uint8Array(16), { name: 'HMAC', hash: 'SHA-256' }, true,
        ['sign']);
      const same = [key.algorithm === key.algorithm, key.usages === key.usages];
      key.algorithm.name = 'AES-GCM';
      key.algorithm.hash.name = 'SHA-1';
      key.usages.push('verify');
      const signature = new Uint8Array(await crypto.subtle.sign('HMAC', key, new Uint8Array(1)));
      const verify = await crypto.subtle.verify('HMAC', key, signature, new Uint8Array(1)).then(() => 'verified',
        (error) => error.name);
      const exported = await crypto.subtle.exportKey('jwk', key);
      return [same, signature.length, verify, exported.alg, exported.key_ops, Reflect.ownKeys(key),
        JSON.stringify(key)];`);
    expect(result).toEqual([[true, true], 32, 'InvalidAccessError', 'HS256', ['sign'], [], '{}']);
  });

  it('refuse look-alike keys: a proxy, an object made from the prototype, a copy of the getters', async () => {
    const result = await run<string[]>(`
      const key = await crypto.subtle.importKey('raw', new Uint8Array(16), { name: 'HMAC', hash: 'SHA-256' }, true,
        ['sign']);
      const lookAlikes = [
        new Proxy(key, {}),
        Object.create(CryptoKey.prototype),
        Object.defineProperties({}, Object.getOwnPropertyDescriptors(CryptoKey.prototype)),
        { type: 'secret', extractable: true, algorithm: key.algorithm, usages: ['sign'] },
      ];
      const names = [];
      for (const fake of lookAlikes) names.push(await crypto.subtle.sign('HMAC', fake,
        new Uint8Array(1)).then(() => 'signed', (error) => error.name));
      return names;`);
    expect(result).toEqual(['TypeError', 'TypeError', 'TypeError', 'TypeError']);
  });
});

describe('the webcrypto module', () => {
  it('is loaded on first use of crypto.subtle, not by getRandomValues or randomUUID', async () => {
    await harness.evaluate(`crypto.getRandomValues(new Uint8Array(8)); crypto.randomUUID(); typeof Crypto`);
    expect(harness.loadedModules).toEqual([]);
    const accessor = await harness.evaluate<boolean>(
      `typeof Object.getOwnPropertyDescriptor(globalThis, 'CryptoKey').get === 'function'`,
    );
    expect(accessor).toBe(true);
    await harness.evaluate(`crypto.subtle.digest('SHA-256', new Uint8Array(1))`);
    await harness.evaluate(`void [SubtleCrypto, CryptoKey, crypto.subtle]`);
    expect(harness.loadedModules).toEqual(['webcrypto']);
  });

  it("releases a collected CryptoKey from the host's key table with its next call", async () => {
    await harness.evaluate(`(async () => {
      for (let i = 0; i < 200; i++) await crypto.subtle.importKey('raw', new Uint8Array(16), 'AES-GCM', false,
        ['encrypt']);
    })()`);
    expect(harness.subtle.liveKeys()).toBe(200);
    // The keys are garbage now; allocating makes V8 collect them, and the next call carries their handles.
    for (let round = 0; round < 50 && harness.subtle.liveKeys() > 10; round++) {
      await harness.evaluate(`(async () => {
        let junk = [];
        for (let i = 0; i < 20000; i++) junk.push({ i, text: 'x'.repeat(32) });
        junk = null;
        await new Promise((resolve) => setTimeout(resolve, 5));
        await crypto.subtle.digest('SHA-256', new Uint8Array(1));
      })()`);
    }
    expect(harness.subtle.liveKeys()).toBeLessThanOrEqual(10);
  });
});

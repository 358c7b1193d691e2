// The host side of SubtleCrypto (host/bridge/webcrypto.ts): a realm's key table behind handles,
// calls checked before Node's WebCrypto sees them, the table's bound, released and dropped keys,
// late answers, and the worker's two thread-pool slots taken in turn.
import { describe, expect, it } from 'vitest';
import { ABANDONED, WORKER_CRYPTO_SLOTS, createSubtle, workerCryptoLoad } from '../../../host/bridge/webcrypto.ts';

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const realm = (options: Parameters<typeof createSubtle>[0] = { alive: () => true }) => createSubtle(options);

async function importHmac(subtle: ReturnType<typeof realm>): Promise<number> {
  const answer = await subtle.call(
    'importKey',
    ['raw', bytes('key'), { name: 'HMAC', hash: 'SHA-256' }, true, ['sign', 'verify']],
    [],
  );
  if (!answer.ok || answer.value.kind !== 'key') throw new Error(`import failed: ${JSON.stringify(answer)}`);
  return answer.value.key.handle;
}

describe("a realm's SubtleCrypto on the host", () => {
  it('answers a new key as a descriptor and uses it by its handle', async () => {
    const subtle = realm();
    const answer = await subtle.call(
      'generateKey',
      [{ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify']],
      [],
    );
    expect(answer).toMatchObject({ ok: true, value: { kind: 'pair' } });
    if (!answer.ok || answer.value.kind !== 'pair') return;
    const { publicKey, privateKey } = answer.value;
    expect(privateKey).toEqual({
      handle: expect.any(Number),
      type: 'private',
      extractable: false,
      algorithm: { name: 'ECDSA', namedCurve: 'P-256' },
      usages: ['sign'],
    });
    expect(publicKey).toMatchObject({ type: 'public', extractable: true, usages: ['verify'] });
    const signed = await subtle.call('sign', [{ name: 'ECDSA', hash: 'SHA-256' }, privateKey.handle, bytes('m')], []);
    if (!signed.ok || signed.value.kind !== 'bytes') throw new Error('no signature');
    expect(
      await subtle.call(
        'verify',
        [{ name: 'ECDSA', hash: 'SHA-256' }, publicKey.handle, signed.value.bytes, bytes('m')],
        [],
      ),
    ).toEqual({ ok: true, value: { kind: 'boolean', value: true } });
    expect(subtle.liveKeys()).toBe(2);
  });

  it("refuses a handle it never issued, as another realm's keys are", async () => {
    const first = realm();
    const second = realm();
    const foreign = await importHmac(first);
    const own = await importHmac(second);
    expect(own).not.toBe(foreign);
    expect(await second.call('sign', ['HMAC', foreign, bytes('x')], [])).toEqual({
      ok: false,
      code: 'TypeError',
      message: 'the key is not a CryptoKey of this isolate',
    });
    expect(await second.call('deriveBits', [{ name: 'ECDH', public: foreign }, own, 128], [])).toMatchObject({
      ok: false,
      code: 'TypeError',
    });
    // Releasing another realm's handle releases nothing there.
    await second.call('digest', ['SHA-256', bytes('x')], [foreign]);
    expect(first.liveKeys()).toBe(1);
    expect(await first.call('sign', ['HMAC', foreign, bytes('x')], [])).toMatchObject({ ok: true });
  });

  it('releases the handles the isolate reports, even with a call it refuses, and refuses them afterwards', async () => {
    const subtle = realm();
    const handle = await importHmac(subtle);
    const other = await importHmac(subtle);
    expect(await subtle.call('sign', ['HMAC', handle, bytes('x')], [handle])).toMatchObject({
      ok: false,
      code: 'TypeError',
    });
    expect(subtle.liveKeys()).toBe(1);
    expect(await subtle.call('digest', [256, bytes('x')], [other])).toMatchObject({ ok: false, code: 'TypeError' });
    expect(subtle.liveKeys()).toBe(0);
  });

  it("refuses a key past the table's bound before doing the work, and takes keys again once released", async () => {
    const subtle = realm({ alive: () => true, maxKeys: 3 });
    const handles = [await importHmac(subtle), await importHmac(subtle)];
    const pair = await subtle.call('generateKey', ['Ed25519', false, ['sign', 'verify']], []);
    expect(pair).toMatchObject({
      ok: false,
      code: 'QuotaExceededError',
      message: expect.stringContaining('holds 2 CryptoKeys, the most it may (3)'),
    });
    handles.push(await importHmac(subtle));
    expect(await subtle.call('importKey', ['raw', bytes('k'), 'AES-GCM', false, ['encrypt']], [])).toMatchObject({
      ok: false,
      code: 'QuotaExceededError',
    });
    expect(await subtle.call('generateKey', ['Ed25519', false, ['sign', 'verify']], handles.slice(0, 2))).toMatchObject(
      { ok: true, value: { kind: 'pair' } },
    );
    expect(subtle.liveKeys()).toBe(3);
  });

  it('bounds the key material it holds, counting what a key could hold before making it', async () => {
    const subtle = realm();
    const big = new Uint8Array(9 * 1024 * 1024);
    const first = await subtle.call('importKey', ['raw', big, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']], []);
    expect(first).toMatchObject({ ok: true, value: { kind: 'key', key: { algorithm: { length: big.length * 8 } } } });
    expect(subtle.keyMaterialBytes()).toBe(big.length);
    expect(await subtle.call('importKey', ['raw', big, 'PBKDF2', false, ['deriveBits']], [])).toMatchObject({
      ok: false,
      code: 'QuotaExceededError',
      message: expect.stringContaining('bytes of key material'),
    });
    expect(
      await subtle.call('generateKey', [{ name: 'HMAC', hash: 'SHA-256', length: 2 ** 31 }, false, ['sign']], []),
    ).toMatchObject({ ok: false, code: 'QuotaExceededError' });
    const small = await subtle.call(
      'generateKey',
      [
        { name: 'RSA-OAEP', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
        false,
        ['encrypt', 'decrypt'],
      ],
      [],
    );
    expect(small).toMatchObject({ ok: true });
    expect(subtle.keyMaterialBytes()).toBe(big.length + 256 * 4);
    if (!first.ok || first.value.kind !== 'key') return;
    await subtle.call('digest', ['SHA-256', bytes('x')], [first.value.key.handle]);
    expect(subtle.keyMaterialBytes()).toBe(256 * 4);
  });

  it('drops its table and refuses every call once its isolate is gone', async () => {
    let alive = true;
    const subtle = realm({ alive: () => alive });
    const handle = await importHmac(subtle);
    alive = false;
    expect(subtle.liveKeys()).toBe(0);
    expect(await subtle.call('sign', ['HMAC', handle, bytes('x')], [])).toEqual({
      ok: false,
      code: 'InvalidStateError',
      message: 'the isolate is gone',
    });
    alive = true;
    expect(await subtle.call('digest', ['SHA-256', bytes('x')], [])).toMatchObject({
      ok: false,
      code: 'InvalidStateError',
    });
  });

  it(
    'answers a result or a failure that came after the ' + 'integration finished its work as abandoned, keeping no key',
    async () => {
      let late = false;
      const subtle = realm({ alive: () => true, late: () => late });
      await importHmac(subtle);
      late = true;
      expect(await subtle.call('generateKey', ['Ed25519', false, ['sign']], [])).toEqual(ABANDONED);
      expect(await subtle.call('digest', ['MD5', bytes('x')], [])).toEqual(ABANDONED);
      expect(await subtle.call('digest', 'not a list', [])).toEqual(ABANDONED);
      expect(subtle.liveKeys()).toBe(1);
    },
  );

  it("takes one call at a time per realm, and the worker's calls at most two at a time, in turn", async () => {
    const password = bytes('password');
    const realms = Array.from({ length: 4 }, () => realm());
    const keys = await Promise.all(
      realms.map(async (subtle) => {
        const answer = await subtle.call('importKey', ['raw', password, 'PBKDF2', false, ['deriveBits']], []);
        return answer.ok && answer.value.kind === 'key' ? answer.value.key.handle : 0;
      }),
    );
    const derive = (index: number) =>
      realms[index].call(
        'deriveBits',
        [{ name: 'PBKDF2', salt: bytes('s'), iterations: 100_000, hash: 'SHA-256' }, keys[index], 256],
        [],
      );
    const calls = realms.map((_, index) => derive(index));
    expect(workerCryptoLoad()).toEqual({ running: WORKER_CRYPTO_SLOTS, waiting: realms.length - WORKER_CRYPTO_SLOTS });
    expect(await derive(0)).toEqual({
      ok: false,
      code: 'OperationError',
      message: 'one crypto.subtle call at a time per isolate',
    });
    const answers = await Promise.all(calls);
    expect(answers.every((answer) => answer.ok)).toBe(true);
    expect(
      new Set(
        answers.map((answer) =>
          answer.ok && answer.value.kind === 'bytes' ? Buffer.from(answer.value.bytes).toString('hex') : '',
        ),
      ).size,
    ).toBe(1);
    expect(workerCryptoLoad()).toEqual({ running: 0, waiting: 0 });
  });

  it("maps Node's errors to the standard's names, with Node's messages and nothing else", async () => {
    const subtle = realm();
    expect(await subtle.call('digest', ['MD5', bytes('x')], [])).toEqual({
      ok: false,
      code: 'NotSupportedError',
      message: 'Unrecognized algorithm name',
    });
    expect(await subtle.call('digest', ['SHA-256', 'text'], [])).toMatchObject({
      ok: false,
      code: 'TypeError',
      message: expect.stringContaining("Failed to execute 'digest' on 'SubtleCrypto'"),
    });
    expect(
      await subtle.call(
        'importKey',
        ['pkcs8', new Uint8Array(10), { name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign']],
        [],
      ),
    ).toEqual({ ok: false, code: 'DataError', message: 'Invalid keyData' });
  });
});

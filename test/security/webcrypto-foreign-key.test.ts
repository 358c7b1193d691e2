// Using another isolate's CryptoKey: realm B's SubtleCrypto primitive called with a handle realm A
// was given (as a runtime that learnt or guessed one would), handles released across realms, and a
// guest hunting its own keys for a handle to copy. Each realm's key table answers only for the
// keys it issued, handles are never reused across realms, and no handle is visible to guest code.
// Installations of one integration share its isolate and its JavaScript state, so a key is theirs
// as any other object of that isolate is; the boundary is the isolate.
import { afterAll, describe, expect, it } from 'vitest';
import { realmSubtle, type RealmSubtle } from '../helpers/realm-subtle.ts';
import { Harness } from '../unit/sandbox-api/harness.ts';

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const realms: RealmSubtle[] = [];
afterAll(() => {
  for (const realm of realms) if (!realm.isolate.isDisposed) realm.isolate.dispose();
});

async function newRealm(): Promise<RealmSubtle> {
  const realm = await realmSubtle();
  realms.push(realm);
  return realm;
}

async function importKey(realm: RealmSubtle, name = 'HMAC'): Promise<number> {
  const algorithm = name === 'HMAC' ? { name, hash: 'SHA-256' } : name;
  const usages = name === 'HMAC' ? ['sign', 'verify'] : ['encrypt', 'decrypt'];
  const answer = await realm.subtle('importKey', ['raw', new Uint8Array(32).fill(1), algorithm, true, usages], []);
  if (!answer.ok || answer.value.kind !== 'key') throw new Error(`import failed: ${JSON.stringify(answer)}`);
  return answer.value.key.handle;
}

describe('a key handle from another isolate', () => {
  it('is refused by every method of the realm that did not issue it', async () => {
    const a = await newRealm();
    const b = await newRealm();
    const stolen = await importKey(a);
    const aes = await importKey(a, 'AES-GCM');
    await importKey(b);
    const refused = { ok: false, code: 'TypeError', message: 'the key is not a CryptoKey of this isolate' };
    expect(await b.subtle('sign', ['HMAC', stolen, bytes('x')], [])).toEqual(refused);
    expect(await b.subtle('verify', ['HMAC', stolen, new Uint8Array(32), bytes('x')], [])).toEqual(refused);
    expect(await b.subtle('exportKey', ['raw', stolen], [])).toEqual(refused);
    expect(await b.subtle('encrypt', [{ name: 'AES-GCM', iv: new Uint8Array(12) }, aes, bytes('x')], [])).toEqual(
      refused,
    );
    expect(await b.subtle('wrapKey', ['raw', stolen, aes, { name: 'AES-GCM', iv: new Uint8Array(12) }], [])).toEqual(
      refused,
    );
    expect(await b.subtle('deriveBits', [{ name: 'X25519', public: stolen }, stolen, 256], [])).toEqual(refused);
  });

  it('never names a key of another realm: handles are unique in the worker process', async () => {
    const a = await newRealm();
    const b = await newRealm();
    const fromA = [await importKey(a), await importKey(a)];
    const fromB = [await importKey(b), await importKey(b)];
    for (const handle of fromA) expect(fromB).not.toContain(handle);
  });

  it('cannot be released in its own realm by another realm', async () => {
    const a = await newRealm();
    const b = await newRealm();
    const key = await importKey(a);
    expect(await b.subtle('digest', ['SHA-256', bytes('x')], [key])).toMatchObject({ ok: true });
    expect(await a.subtle('exportKey', ['raw', key], [])).toEqual({
      ok: true,
      value: { kind: 'bytes', bytes: new Uint8Array(32).fill(1) },
    });
  });

  it('is never visible to guest code, which finds no number to copy on a key or its prototype', async () => {
    const harness = await Harness.create();
    try {
      const found = await harness.evaluate<string>(`(async () => {
        const key = await crypto.subtle.importKey('raw', new Uint8Array(16), { name: 'HMAC', hash: 'SHA-256' }, true,
          ['sign']);
        const seen = [];
        for (const target of [key, Object.getPrototypeOf(key)]) {
          for (const name of Reflect.ownKeys(target)) {
            const descriptor = Object.getOwnPropertyDescriptor(target, name);
            const value = 'value' in descriptor ? descriptor.value : descriptor.get.call(key);
            seen.push(typeof value === 'number' ? 'number ' + String(name) : typeof value);
          }
        }
        return JSON.stringify({ seen, json: JSON.stringify(key), keys: Object.keys(key),
          symbols: Object.getOwnPropertySymbols(key).length });
      })()`);
      const result = JSON.parse(found) as { seen: string[]; json: string; keys: string[]; symbols: number };
      expect(result.seen.filter((entry) => entry.startsWith('number'))).toEqual([]);
      expect(result).toMatchObject({ json: '{}', keys: [], symbols: 0 });
    } finally {
      harness.dispose();
    }
  });
});

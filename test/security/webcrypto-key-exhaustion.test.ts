// Exhausting the host's key table: a guest that keeps every CryptoKey it makes, hoping to grow the
// host's memory without bound (key material lives on the host, outside the isolate's heap limit).
// At the table's bound (SUBTLE_LIMITS.keys) the next key is refused with a QuotaExceededError
// naming the bound, before any work; a key pair with one place left is refused whole; the
// isolate's other crypto goes on; once the guest lets its keys go and V8 collects them, their
// places are released with its next call and keys can be made again. Few but huge keys (HMAC
// keys of megabytes, imported or generated) meet the bound on key material instead.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUBTLE_LIMITS } from '../../sandbox-api/runtime/contract.ts';
import { Harness } from '../unit/sandbox-api/harness.ts';

let harness: Harness;
beforeAll(async () => {
  harness = await Harness.create({ runtime: 'snapshot' });
});
afterAll(() => harness?.dispose());

const run = async <T>(body: string): Promise<T> =>
  JSON.parse(await harness.evaluate<string>(`(async () => JSON.stringify(await (async () => { ${body} })()))()`));

describe("a guest filling the host's key table", () => {
  it('gets a QuotaExceededError naming the bound at the bound, and the host holds no more', async () => {
    const result = await run<{ made: number; error: [string, string] }>(`
      globalThis.hoard = [];
      const key = () => crypto.subtle.importKey('raw', new Uint8Array(16), 'AES-GCM', false, ['encrypt']);
      let error = null;
      while (error === null) {
        try { hoard.push(await key()); } catch (caught) { error = [caught.name, caught.message]; }
      }
      return { made: hoard.length, error };`);
    expect(result.made).toBe(SUBTLE_LIMITS.keys);
    expect(result.error).toEqual([
      'QuotaExceededError',
      expect.stringContaining(`the most it may (${SUBTLE_LIMITS.keys})`),
    ]);
    expect(harness.subtle.liveKeys()).toBe(SUBTLE_LIMITS.keys);
  });

  it('refuses a key pair whole when one place is left, and keeps serving what needs no new key', async () => {
    const result = await run<string[]>(`
      hoard.pop();
      const fail = (promise) => promise.then(() => 'none', (error) => error.name);
      const names = [await fail(crypto.subtle.generateKey('Ed25519', false, ['sign', 'verify']))];
      names.push(await fail(crypto.subtle.encrypt({ name: 'AES-GCM', iv: new Uint8Array(12) }, hoard[0],
        new Uint8Array(4))));
      names.push(await fail(crypto.subtle.digest('SHA-256', new Uint8Array(4))));
      return names;`);
    expect(result).toEqual(['QuotaExceededError', 'none', 'none']);
    expect(harness.subtle.liveKeys()).toBeLessThanOrEqual(SUBTLE_LIMITS.keys);
  });

  it('meets the bound on key material with few but huge keys, whatever their count', async () => {
    const other = await Harness.create();
    try {
      const result = await other.evaluate<string>(`(async () => {
        const hoard = [];
        const fail = (promise) => promise.then((key) => { hoard.push(key); return 'none'; }, (error) => error.name);
        const names = [];
        for (let i = 0; i < 3; i++) names.push(await fail(crypto.subtle.importKey('raw',
          new Uint8Array(${6 * 1024 * 1024}), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign'])));
        names.push(await fail(crypto.subtle.generateKey({ name: 'HMAC', hash: 'SHA-256', length: ${2 ** 30} }, false,
          ['sign'])));
        globalThis.hoard = hoard;
        return JSON.stringify(names);
      })()`);
      expect(JSON.parse(result)).toEqual(['none', 'none', 'QuotaExceededError', 'QuotaExceededError']);
      expect(other.subtle.liveKeys()).toBe(2);
      expect(other.subtle.keyMaterialBytes()).toBeLessThanOrEqual(SUBTLE_LIMITS.keyBytes);
    } finally {
      other.dispose();
    }
  });

  it('makes keys again once the guest lets its keys go and they are collected', async () => {
    await harness.evaluate(`globalThis.hoard = null`);
    for (let round = 0; round < 100 && harness.subtle.liveKeys() > SUBTLE_LIMITS.keys / 2; round++) {
      await harness.evaluate(`(async () => {
        let junk = [];
        for (let i = 0; i < 50000; i++) junk.push({ i, text: 'x'.repeat(64) });
        junk = null;
        await new Promise((resolve) => setTimeout(resolve, 5));
        await crypto.subtle.digest('SHA-256', new Uint8Array(1));
      })()`);
    }
    expect(harness.subtle.liveKeys()).toBeLessThanOrEqual(SUBTLE_LIMITS.keys / 2);
    const made = await run<string>(
      `return (await crypto.subtle.generateKey('Ed25519', false, ['sign', 'verify'])).privateKey.type;`,
    );
    expect(made).toBe('private');
  });
});

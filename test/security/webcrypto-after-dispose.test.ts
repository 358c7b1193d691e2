// SubtleCrypto calls after the isolate is gone: the bridge function of a disposed realm called
// again (as a reference kept past disposal could), a call in flight on the thread pool when the
// isolate is disposed (a deadline passing mid-operation), and a guest whose key generation is
// still running when its isolate is thrown away. Each is answered as a refusal without a host
// error; no key is kept for a dead isolate, and the worker process sees no unhandled rejection.
import { afterAll, describe, expect, it } from 'vitest';
import { workerCryptoLoad } from '../../host/bridge/webcrypto.ts';
import { waitFor } from '../helpers/host.ts';
import { realmSubtle } from '../helpers/realm-subtle.ts';
import { Harness } from '../unit/sandbox-api/harness.ts';

const rejections: unknown[] = [];
const onRejection = (reason: unknown) => void rejections.push(reason);
process.on('unhandledRejection', onRejection);
afterAll(() => void process.off('unhandledRejection', onRejection));

const GONE = { ok: false, code: 'InvalidStateError', message: 'the isolate is gone' };

describe('SubtleCrypto after the isolate is disposed', () => {
  it('refuses every call of the dead realm, its keys included, as data', async () => {
    const realm = await realmSubtle();
    const answer = await realm.subtle('importKey', ['raw', new Uint8Array(16), 'AES-GCM', true, ['encrypt']], []);
    if (!answer.ok || answer.value.kind !== 'key') throw new Error('no key');
    realm.isolate.dispose();
    expect(await realm.subtle('exportKey', ['raw', answer.value.key.handle], [])).toEqual(GONE);
    expect(await realm.subtle('digest', ['SHA-256', new Uint8Array(1)], [])).toEqual(GONE);
    expect(await realm.subtle('generateKey', ['Ed25519', true, ['sign']], [])).toEqual(GONE);
  });

  it('keeps no key made by a call that was in flight when the isolate went', async () => {
    const realm = await realmSubtle();
    const pending = realm.subtle(
      'generateKey',
      [
        { name: 'RSA-PSS', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
        true,
        ['sign'],
      ],
      [],
    );
    expect(workerCryptoLoad().running).toBeGreaterThan(0);
    realm.isolate.dispose();
    expect(await pending).toEqual(GONE);
  });

  it("lets a guest's pending key generation end quietly when its isolate is thrown away", async () => {
    const harness = await Harness.create();
    await harness.evaluate(
      `void crypto.subtle.generateKey({ name: 'RSA-OAEP', modulusLength: 4096, publicExponent: new Uint8Array([1, ` +
        `0, 1]), hash: 'SHA-256' }, true, ['encrypt', 'decrypt']).then(() => console.log('generated'))`,
    );
    await waitFor(() => harness.subtleCalls.length === 1 && workerCryptoLoad().running > 0);
    harness.dispose();
    await waitFor(() => workerCryptoLoad().running === 0);
    expect(harness.subtle.liveKeys()).toBe(0);
    expect(harness.logs).toEqual([]);
    // A new isolate of the same worker does crypto as before.
    const next = await Harness.create();
    try {
      expect(
        await next.evaluate<number>(
          `crypto.subtle.digest('SHA-256', new Uint8Array(1)).then((digest) => digest.byteLength)`,
        ),
      ).toBe(32);
    } finally {
      next.dispose();
    }
    expect(rejections).toEqual([]);
  });
});

// A realm's primitives as the worker binds them (realm-primitives.ts): an async one never rejects
// (its failure is data, without the host's error), since a rejection Node saw unhandled would end
// the worker.
import ivm from 'isolated-vm';
import { describe, expect, it } from 'vitest';
import {
  orderedPrimitives,
  realmImplementations,
  createRealmResources,
} from '../../../host/sandbox/realm-primitives.ts';
import type { RealmOwner } from '../../../host/sandbox/realm.ts';
import { PRIMITIVE_NAMES } from '../../../sandbox-api/runtime/contract.ts';
import { runtimeModules } from '../../helpers/runtime-modules.ts';

describe('a realm’s primitives', () => {
  it('that are async answer a host failure as data, never by rejecting with the host’s error', async () => {
    const failing = async () => {
      throw new Error('host failure at /srv/host/secret.ts');
    };
    const owner = { fetch: failing, fetchRead: failing } as unknown as RealmOwner;
    const implementations = realmImplementations(() => owner, owner, await runtimeModules(), createRealmResources());
    const bound = orderedPrimitives({ ...implementations, subtle: failing, compressionWrite: failing });
    for (const name of ['fetch', 'fetchRead', 'subtle', 'compressionWrite'] as const) {
      const reference = bound[PRIMITIVE_NAMES.indexOf(name)] as ivm.Reference<(...args: unknown[]) => Promise<unknown>>;
      await expect(reference.deref()(), name).resolves.toEqual({
        ok: false,
        code: 'bridge_error',
        message: 'the host could not complete this call',
      });
    }
  });
});

// A real realm's SubtleCrypto primitive, as the worker binds it (realm-primitives.ts): a fresh
// isolate and the host function behind the `subtle` Reference its runtime would be given, for
// security tests that call the bridge function directly, as a hostile runtime could.
import ivm from 'isolated-vm';
import { createRealmResources, realmPrimitives } from '../../host/sandbox/realm-primitives.ts';
import type { RealmOwner } from '../../host/sandbox/realm.ts';
import { PRIMITIVE_NAMES, type BridgePrimitives } from '../../sandbox-api/runtime/contract.ts';
import { runtimeModules } from './runtime-modules.ts';

export interface RealmSubtle {
  isolate: ivm.Isolate;
  subtle: BridgePrimitives['subtle'];
}

const OWNER: RealmOwner = {
  log: () => undefined,
  fetch: async () => ({ ok: false, code: 'TypeError', message: 'offline' }),
  fetchRead: async () => ({ ok: false, code: 'TypeError', message: 'offline' }),
  fetchCancel: () => undefined,
  setTimer: () => undefined,
  clearTimer: () => undefined,
  lateAnswer: () => false,
};

export async function realmSubtle(owner: Partial<RealmOwner> = {}): Promise<RealmSubtle> {
  const isolate = new ivm.Isolate({ memoryLimit: 32 });
  const primitives = realmPrimitives(
    () => ({ ...OWNER, ...owner }),
    OWNER,
    await runtimeModules(),
    createRealmResources(() => !isolate.isDisposed),
  );
  const reference = primitives[PRIMITIVE_NAMES.indexOf('subtle')] as ivm.Reference<BridgePrimitives['subtle']>;
  return { isolate, subtle: reference.deref() };
}

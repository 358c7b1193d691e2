// Entry of the runtime's startup snapshot (bundled by build.ts, run by isolated-vm's createSnapshot
// in the worker, from our own code only). It builds the runtime exactly as install() does, with
// every global, against primitives that are bound later, and hardens the realm but for the
// intrinsics V8 extends when it deserializes a context (harden.ts). Every context made from the
// snapshot then calls the one global it leaves, __ih_bootstrap, before any guest code: that binds
// the worker's primitives, removes the globals V8 put back, freezes what was deferred, deletes
// itself and returns the RuntimeApi. Nothing here may keep an Intl instance, a
// FinalizationRegistry or a non-extensible intrinsic in the heap (the deserialization would abort).
import { bindPrimitives, type RawPrimitives } from './bind.ts';
import { PRIMITIVE_NAMES, type RuntimeApi } from './contract.ts';
import { RUNTIME_HIDDEN, beginRealm, defineRuntime, removeGlobals } from './install.ts';
import { hardenRealm, hardenRetouched } from './harden.ts';
import { learnCallSites } from './stack-capture.ts';

/** The primitives bound after deserialization (bootstrap); null before. */
let bound: RawPrimitives | null = null;

/** Primitives before binding: calling one is a runtime bug, reported as a plain error. */
function unbound(): never {
  throw new Error('the sandbox runtime was used before it was bound');
}

// The runtime calls these; each forwards to the primitive bound after deserialization.
const forwarders = Object.create(null) as Record<string, (...args: unknown[]) => unknown>;
for (const name of PRIMITIVE_NAMES) {
  forwarders[name] = (...args: unknown[]) =>
    bound === null ? unbound() : (bound[name] as (...call: unknown[]) => unknown)(...args);
}
const api: RuntimeApi = defineRuntime(forwarders as unknown as RawPrimitives);
hardenRealm({ deferRetouched: true, runtimeHidden: RUNTIME_HIDDEN });

const BOOTSTRAP = '__ih_bootstrap';

/** Binds the worker's primitives (in the order of PRIMITIVE_NAMES, as install() takes them), once. */
function bootstrap(...primitives: unknown[]): RuntimeApi {
  Reflect.deleteProperty(globalThis, BOOTSTRAP);
  if (bound !== null) throw new Error('the sandbox runtime is bound already');
  bound = bindPrimitives(primitives);
  removeGlobals();
  beginRealm();
  // V8 makes the call sites afresh in a deserialized context: the capture learns this context's.
  learnCallSites();
  hardenRetouched();
  return api;
}

Object.defineProperty(globalThis, BOOTSTRAP, {
  value: bootstrap,
  writable: false,
  enumerable: false,
  configurable: true,
});

// Entry of the runtime's startup snapshot (bundled by build.ts, run by isolated-vm's createSnapshot
// in the worker, from our own code only). It builds the runtime exactly as install() does, with
// every global, against primitives that are bound later, and hardens the realm but for the
// intrinsics V8 extends when it deserializes a context (harden.ts). Every context made from the
// snapshot then calls the one global it leaves, __ih_bootstrap, before any guest code: that binds
// the worker's primitives, removes the globals V8 put back, freezes what was deferred, deletes
// itself and returns the RuntimeApi. Nothing here may keep an Intl instance, a
// FinalizationRegistry or a non-extensible intrinsic in the heap (the deserialization would abort).
import type { BridgePrimitives, BridgeRequest, BridgeResponse, BridgeResult, RuntimeApi } from './contract.ts';
import { RUNTIME_HIDDEN, defineRuntime, removeGlobals } from './install.ts';
import { hardenRealm, hardenRetouched } from './harden.ts';

type Primitive<K extends keyof BridgePrimitives> = BridgePrimitives[K] | null;

/** How isolated-vm shows a host Reference inside the isolate: only the call the fetch bridge needs. */
interface HostReference {
  apply(receiver: undefined, args: unknown[], options: object): Promise<BridgeResult<BridgeResponse>>;
}

let log: Primitive<'log'> = null;
let fetchRef: HostReference | null = null;
let setTimer: Primitive<'setTimer'> = null;
let clearTimer: Primitive<'clearTimer'> = null;
let parseUrl: Primitive<'parseUrl'> = null;
let decodeText: Primitive<'decodeText'> = null;
let randomBytes: Primitive<'randomBytes'> = null;
let digest: Primitive<'digest'> = null;
let hmac: Primitive<'hmac'> = null;

/** Primitives before binding: calling one is a runtime bug, reported as a plain error. */
function unbound(): never {
  throw new Error('the sandbox runtime was used before it was bound');
}

// The runtime calls these; each forwards to the primitive bound after deserialization. A host
// fetch is a Reference whose promise result an async Callback cannot carry, so it is applied here.
const api: RuntimeApi = defineRuntime(
  (level, text) => (log ?? unbound)(level, text),
  (request: BridgeRequest) =>
    fetchRef === null ? unbound() : fetchRef.apply(undefined, [request], { arguments: { copy: true }, result: { promise: true, copy: true } }),
  (id, delayMs) => (setTimer ?? unbound)(id, delayMs),
  (id) => (clearTimer ?? unbound)(id),
  (input, base) => (parseUrl ?? unbound)(input, base),
  (bytes, label, fatal, ignoreBOM) => (decodeText ?? unbound)(bytes, label, fatal, ignoreBOM),
  (length) => (randomBytes ?? unbound)(length),
  (algorithm, data) => (digest ?? unbound)(algorithm, data),
  (algorithm, key, data) => (hmac ?? unbound)(algorithm, key, data),
);
hardenRealm({ deferRetouched: true, runtimeHidden: RUNTIME_HIDDEN });

const BOOTSTRAP = '__ih_bootstrap';

function bootstrap(
  boundLog: BridgePrimitives['log'],
  boundFetch: HostReference,
  boundSetTimer: BridgePrimitives['setTimer'],
  boundClearTimer: BridgePrimitives['clearTimer'],
  boundParseUrl: BridgePrimitives['parseUrl'],
  boundDecodeText: BridgePrimitives['decodeText'],
  boundRandomBytes: BridgePrimitives['randomBytes'],
  boundDigest: BridgePrimitives['digest'],
  boundHmac: BridgePrimitives['hmac'],
): RuntimeApi {
  Reflect.deleteProperty(globalThis, BOOTSTRAP);
  if (log !== null) throw new Error('the sandbox runtime is bound already');
  log = boundLog;
  fetchRef = boundFetch;
  setTimer = boundSetTimer;
  clearTimer = boundClearTimer;
  parseUrl = boundParseUrl;
  decodeText = boundDecodeText;
  randomBytes = boundRandomBytes;
  digest = boundDigest;
  hmac = boundHmac;
  removeGlobals();
  hardenRetouched();
  return api;
}

Object.defineProperty(globalThis, BOOTSTRAP, { value: bootstrap, writable: false, enumerable: false, configurable: true });

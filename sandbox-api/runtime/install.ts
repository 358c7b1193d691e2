// Entry of the in-isolate runtime (bundled by build.ts). install() receives the BridgePrimitives
// positionally, wraps them (bridge.ts), defines the web-platform globals guest code may use, and
// returns the RuntimeApi for the worker, after freezing the built-ins and its own globals (harden.ts).
// It never leaves a bridge function reachable from globalThis or from any object guest code can
// reach: they live only in closures.
import { atob, btoa } from './base64.ts';
import { Blob, File, setBlobStreams } from './blob.ts';
import { bindBodies } from './body.ts';
import { bindSignals } from './signals.ts';
import { bindPrimitives, type RawPrimitives } from './bind.ts';
import { wrapPrimitives } from './bridge.ts';
import { startClock } from './clock.ts';
import { createConsole } from './console.ts';
import { formatReport } from './console-format.ts';
import { installStackCapture } from './stack-capture.ts';
import type { RuntimeApi } from './contract.ts';
import { Crypto, createCrypto } from './crypto.ts';
import { createRuntimeApi } from './dispatch.ts';
import { DOMException } from './dom-exception.ts';
import { FinalizationRegistry } from './finalization-registry.ts';
import { createFetch } from './fetch.ts';
import { FormData } from './form-data.ts';
import { hardenRealm } from './harden.ts';
import { Headers } from './headers.ts';
import { Navigator, navigator } from './navigator.ts';
import { createRequestClass } from './request.ts';
import { createResponseClass } from './response.ts';
import { TextEncoder, createTextDecoderClass } from './text-codec.ts';
import { PROVIDED_MODULES } from './provided.ts';
import { realmFloat16Array, takeLateIntrinsics } from './late-intrinsics.ts';
import { moduleDeps } from './module-deps.ts';
import { createTimers } from './timers.ts';
import { createUrlClass } from './url.ts';
import { captureScope, createModuleLoader, defineLazyGlobals, type ModuleLoader } from './modules.ts';
import { createUrlCache } from './url-cache.ts';
import { bindSharedMemory, defineSharedArrayBuffer } from './shared-memory.ts';
import { URLSearchParams } from './url-search-params.ts';

/** The globals of the streams module (modules/streams.ts), loaded on first use. */
const STREAM_GLOBALS = [
  'ReadableStream',
  'ReadableStreamDefaultReader',
  'ReadableStreamBYOBReader',
  'ReadableStreamBYOBRequest',
  'ReadableStreamDefaultController',
  'ReadableByteStreamController',
  'WritableStream',
  'WritableStreamDefaultWriter',
  'WritableStreamDefaultController',
  'TransformStream',
  'TransformStreamDefaultController',
  'ByteLengthQueuingStrategy',
  'CountQueuingStrategy',
];

/** The globals of the encoding streams module (modules/encoding-streams.ts), loaded on first use. */
const ENCODING_STREAM_GLOBALS = ['TextEncoderStream', 'TextDecoderStream'];

/** The globals of the compression module (modules/compression.ts), loaded on first use. */
const COMPRESSION_GLOBALS = ['CompressionStream', 'DecompressionStream'];

/** The globals of the events module (modules/events.ts), loaded on first use. */
const EVENT_GLOBALS = [
  'Event',
  'EventTarget',
  'CustomEvent',
  'AbortController',
  'AbortSignal',
  'Performance',
  'performance',
] as const;

/** The globals of the webcrypto module (modules/webcrypto.ts), loaded on first use (as is `crypto.subtle`). */
const WEBCRYPTO_GLOBALS = ['SubtleCrypto', 'CryptoKey'];

/**
 * Plain V8 globals the design keeps away from untrusted code: Atomics (waits and shared-memory
 * timing) and WebAssembly (raw Wasm, and shared Wasm memories). SharedArrayBuffer stays: one
 * isolate has no second thread to share it with, and it never crosses to the host (shared-memory.ts).
 */
const REMOVED_GLOBALS = ['Atomics', 'WebAssembly'];

/** The values of the globals the runtime defined, as it defined them (its platform objects: platform-objects.ts). */
const definedGlobals: unknown[] = [];

function defineGlobal(name: string, value: unknown): void {
  // Like web platform globals: writable and configurable, but not enumerable.
  Object.defineProperty(globalThis, name, { value, writable: true, configurable: true, enumerable: false });
  definedGlobals.push(value);
}

/**
 * What each realm does when it starts, before any guest code (install() and the snapshot's
 * bootstrap): its clock starts now, the intrinsics V8 adds to a context are taken for modules, and
 * SharedArrayBuffer becomes the global that loads the shared-memory module on first read.
 */
export function beginRealm(): void {
  startClock();
  takeLateIntrinsics();
  defineSharedArrayBuffer();
}

/**
 * The runtime's own objects that no global names but guest code receives (the sandbox-api modules
 * every bundle is linked to, provided.ts): hardenRealm freezes them, and everything they reach,
 * with the built-ins.
 */
export const RUNTIME_HIDDEN: readonly unknown[] = [PROVIDED_MODULES];

/**
 * Deletes the globals the design keeps away from guests (V8 puts WebAssembly back into every context made from a
 * snapshot).
 */
export function removeGlobals(): void {
  for (const name of REMOVED_GLOBALS) Reflect.deleteProperty(globalThis, name);
}

/** The runtime's entry without a snapshot: the primitives in the order of PRIMITIVE_NAMES (bind.ts). */
export function install(...primitives: unknown[]): RuntimeApi {
  removeGlobals();
  beginRealm();
  const api = defineRuntime(bindPrimitives(primitives));
  // Last, once every global is in place and before the worker runs any integration code.
  hardenRealm({ runtimeHidden: RUNTIME_HIDDEN });
  return api;
}

/**
 * Everything install() does but removing globals and hardening: the runtime's globals and its
 * RuntimeApi, built on the primitives given (snapshot.ts builds it once into a startup snapshot).
 */
export function defineRuntime(primitives: RawPrimitives): RuntimeApi {
  // First: every stack V8 formats from here on has its frames recorded (stack-capture.ts).
  installStackCapture();
  const bridge = wrapPrimitives(primitives);
  // V8's own, before the runtime replaces the global: only the webcrypto module uses it, for a
  // cleanup that merely records handles (modules/webcrypto.ts). No instance exists in the snapshot.
  const NativeFinalizationRegistry = globalThis.FinalizationRegistry;
  const urls = createUrlCache((input, base) => bridge.parseUrl(input, base));
  const parse = urls.parse;

  const URL = createUrlClass(parse, (href, component, value) => bridge.setUrlComponent(href, component, value));
  const Request = createRequestClass(parse);
  const { Response, responseFromBridge, serializeResponse, isResponse } = createResponseClass(parse);
  // The encoding module holds the label table and the other encodings (bound once `modules` exists).
  const TextDecoder = createTextDecoderClass(() => modules.get('encoding'));
  const guestConsole = createConsole((level, text) => bridge.log(level, text));
  const timers = createTimers({
    setTimer: (id, delayMs) => bridge.setTimer(id, delayMs),
    clearTimer: (id) => bridge.clearTimer(id),
    reportError: (error) => guestConsole.error(`Uncaught exception in a timer callback: ${formatReport(error)}`),
  });
  const crypto = createCrypto(
    (length) => bridge.randomBytes(length),
    () => modules.get('webcrypto').subtle,
  );

  defineGlobal(
    'fetch',
    createFetch(Request, responseFromBridge, {
      fetch: (request) => bridge.fetch(request),
      read: (id) => bridge.fetchRead(id),
      cancel: (id) => bridge.fetchCancel(id),
    }),
  );
  defineGlobal('Request', Request);
  defineGlobal('Response', Response);
  defineGlobal('Headers', Headers);
  defineGlobal('URL', URL);
  defineGlobal('URLSearchParams', URLSearchParams);
  defineGlobal('Blob', Blob);
  defineGlobal('File', File);
  defineGlobal('FormData', FormData);
  defineGlobal('TextEncoder', TextEncoder);
  defineGlobal('TextDecoder', TextDecoder);
  defineGlobal('atob', atob);
  defineGlobal('btoa', btoa);
  defineGlobal('DOMException', DOMException);
  // Replaces V8's: its cleanup callbacks would run guest code while the integration is idle.
  defineGlobal('FinalizationRegistry', FinalizationRegistry);
  defineGlobal('Crypto', Crypto);
  defineGlobal('crypto', crypto);
  defineGlobal('setTimeout', timers.setTimeout);
  defineGlobal('clearTimeout', timers.clearTimeout);
  defineGlobal('setInterval', timers.setInterval);
  defineGlobal('clearInterval', timers.clearInterval);
  defineGlobal('console', guestConsole);
  defineGlobal('self', globalThis);
  defineGlobal('navigator', navigator);
  defineGlobal('Navigator', Navigator);
  const existingMicrotask = (globalThis as { queueMicrotask?: unknown }).queueMicrotask;
  const queueMicrotask =
    typeof existingMicrotask === 'function'
      ? existingMicrotask
      : {
          // A method: named queueMicrotask, as the standard spells it, and no prototype object.
          queueMicrotask(callback: unknown): void {
            if (typeof callback !== 'function') throw new TypeError('queueMicrotask: callback must be a function');
            void Promise.resolve().then(() => {
              try {
                callback();
              } catch (error) {
                guestConsole.error(`Uncaught exception in a microtask: ${formatReport(error)}`);
              }
            });
          },
        }.queueMicrotask;
  if (existingMicrotask !== queueMicrotask) defineGlobal('queueMicrotask', queueMicrotask);

  /**
   * The streams module's AbortController until the events module is loaded: a ReadableStream (a
   * body) needs none, so the events module loads with the first WritableStream instead. Never a
   * global: `new` returns the events module's own AbortController.
   */
  const lazyAbortController = {
    AbortController: function (): object {
      return new (modules.get('events').AbortController)();
    },
  }.AbortController;

  // The runtime's modules outside the snapshot, and the globals that load them on first use.
  const none = () => undefined;
  const scope = captureScope({
    globalThis: none,
    self: none,
    global: none,
    window: none,
    DOMException: () => DOMException,
    queueMicrotask: () => queueMicrotask,
    structuredClone: none,
    // A module that uses these must load the events module in its deps (they run before the scope is
    // read), or, for AbortController, gets a constructor that loads it when first called (streams).
    AbortController: () => modules.peek('events')?.AbortController ?? lazyAbortController,
    AbortSignal: () => modules.peek('events')?.AbortSignal,
    TextEncoder: () => TextEncoder,
    TextDecoder: () => TextDecoder,
    setTimeout: () => timers.setTimeout,
    clearTimeout: () => timers.clearTimeout,
    console: () => guestConsole,
    URL: () => URL,
    Float16Array: realmFloat16Array,
  });
  const modules: ModuleLoader = createModuleLoader(
    (name) => bridge.loadModule(name),
    scope,
    (name) =>
      moduleDeps(name, {
        modules,
        setTimeout: timers.setTimeout,
        console: guestConsole,
        definedGlobals,
        bridge,
        FinalizationRegistry: NativeFinalizationRegistry,
      }),
  );
  const events = () => modules.get('events');
  defineLazyGlobals(
    STREAM_GLOBALS,
    (name) => (modules.get('streams').classes as unknown as Record<string, unknown>)[name],
  );
  defineLazyGlobals(
    ENCODING_STREAM_GLOBALS,
    (name) => (modules.get('encoding-streams') as unknown as Record<string, unknown>)[name],
  );
  defineLazyGlobals(
    COMPRESSION_GLOBALS,
    (name) => (modules.get('compression') as unknown as Record<string, unknown>)[name],
  );
  defineLazyGlobals(EVENT_GLOBALS, (name) => events()[name as (typeof EVENT_GLOBALS)[number]]);
  defineLazyGlobals(['structuredClone'], () => modules.get('structured-clone').structuredClone);
  defineLazyGlobals(['URLPattern'], () => modules.get('urlpattern').URLPattern);
  defineLazyGlobals(
    WEBCRYPTO_GLOBALS,
    (name) => (modules.get('webcrypto') as unknown as Record<string, unknown>)[name],
  );
  bindSharedMemory(() => modules.get('shared-memory'));
  bindBodies({ streams: () => modules.get('streams'), loadedStreams: () => modules.peek('streams') });
  bindSignals({ internals: () => events().abort, loadedInternals: () => modules.peek('events')?.abort ?? null });
  setBlobStreams(() => modules.get('streams').classes.ReadableStream);

  const api = createRuntimeApi({
    classes: { Response, Request, Headers },
    isResponse,
    serializeResponse,
    streams: () => modules.get('streams'),
    log: (level, text) => bridge.log(level, text),
    fireTimer: (id) => timers.fire(id),
    seedUrls: urls.seed,
    provided: PROVIDED_MODULES,
  });
  return api;
}

export default install;

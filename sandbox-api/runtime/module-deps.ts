// What each lazily loaded runtime module is given when it loads (modules.ts). Only compiled then:
// a snapshot holds this file's source, never objects or code built from it, so an integration that
// loads no module pays nothing more for it. It hands modules runtime internals, never guest objects.
import { Blob, File, blobBytes } from './blob.ts';
import { clockNow, timeOrigin } from './clock.ts';
import { formatReport } from './console-format.ts';
import { RUNTIME_MODULES, type RuntimeModuleName } from './contract.ts';
import { DOMException } from './dom-exception.ts';
import { realmFloat16Array, realmSharedArrayBuffer, sharedBufferLength } from './late-intrinsics.ts';
import type { ModuleLoader, RuntimeModules } from './modules.ts';
import { createPlatformCheck } from './platform-objects.ts';
import type { SafeBridge } from './bridge.ts';

export interface ModuleDepsEnv {
  modules: ModuleLoader;
  setTimeout(callback: () => void, ms: number): unknown;
  console: { error(...data: unknown[]): void };
  /** The values of the globals the runtime defined (its platform objects, for structuredClone). */
  definedGlobals: readonly unknown[];
  /** The host primitives modules work through (text decoding, compression, SubtleCrypto). */
  bridge: Pick<SafeBridge, 'decodeText' | 'compressionOpen' | 'compressionWrite' | 'compressionClose' | 'subtle'>;
  /** V8's own FinalizationRegistry, taken before the runtime replaced the global (webcrypto releases keys with it). */
  FinalizationRegistry: typeof globalThis.FinalizationRegistry;
}

export function moduleDeps<N extends RuntimeModuleName>(name: N, env: ModuleDepsEnv): RuntimeModules[N]['deps'] {
  const deps: { [K in RuntimeModuleName]: () => RuntimeModules[K]['deps'] } = {
    // WritableStreamDefaultController#signal is an AbortSignal: the module scope's AbortController
    // loads the events module when the first WritableStream is made (install.ts), not before.
    streams: () => ({}),
    events: () => ({
      now: clockNow,
      timeOrigin,
      setTimeout: env.setTimeout,
      reportError: (error) => env.console.error(`Uncaught exception in an event listener: ${formatReport(error)}`),
    }),
    'structured-clone': () => ({
      Blob,
      File,
      blobBytes: (blob) => blobBytes(blob as Blob),
      isPlatformObject: createPlatformCheck(env.definedGlobals, [Blob, File, DOMException], () =>
        RUNTIME_MODULES.flatMap((loaded) => env.modules.peek(loaded) ?? []),
      ),
      Float16Array: realmFloat16Array,
      isSharedArrayBuffer: (value) => sharedBufferLength(value) !== undefined,
    }),
    urlpattern: () => ({}),
    encoding: () => ({
      decodeText: (bytes, encoding, fatal, ignoreBOM, stream, last) =>
        env.bridge.decodeText(bytes, encoding, fatal, ignoreBOM, stream, last),
    }),
    'encoding-streams': () => ({
      TransformStream: env.modules.get('streams').classes
        .TransformStream as RuntimeModules['encoding-streams']['deps']['TransformStream'],
    }),
    webcrypto: () => ({
      call: (operation, args, released) => env.bridge.subtle(operation, args, released),
      FinalizationRegistry: env.FinalizationRegistry,
    }),
    'shared-memory': () => ({ SharedArrayBuffer: realmSharedArrayBuffer(), sharedBufferLength }),
    compression: () => ({
      TransformStream: env.modules.get('streams').classes.TransformStream,
      open: (format, decompress) => env.bridge.compressionOpen(format, decompress),
      write: (id, input, finish) => env.bridge.compressionWrite(id, input, finish),
      close: (id) => env.bridge.compressionClose(id),
    }),
  };
  return deps[name]();
}

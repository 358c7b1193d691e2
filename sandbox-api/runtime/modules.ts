// The runtime's lazily loaded modules (RUNTIME_MODULES): loads each into this isolate the first time
// it is needed, through the host (BridgePrimitives.loadModule), calls its entry with the scope the
// runtime captured before any guest code ran, freezes what it exports like the built-ins, and
// defines the globals that stand for a module until then. It never loads a module by a guest's name.
import { MODULE_SCOPE_NAMES, type ModuleScopeName, type RuntimeModuleName } from './contract.ts';
import { hardenLoaded } from './harden.ts';
import type { EncodingDeps, EncodingExports } from './modules/encoding.ts';
import type { EncodingStreamsDeps, EncodingStreamsExports } from './modules/encoding-streams.ts';
import type { StreamsDeps, StreamsExports } from './modules/streams.ts';
import type { CompressionDeps, CompressionExports } from './modules/compression.ts';
import type { EventsDeps, EventsExports } from './modules/events.ts';
import type { StructuredCloneDeps, StructuredCloneExports } from './modules/structured-clone.ts';
import type { UrlPatternDeps, UrlPatternExports } from './modules/urlpattern.ts';
import type { WebCryptoDeps, WebCryptoExports } from './modules/webcrypto.ts';
import type { SharedMemoryDeps, SharedMemoryExports } from './modules/shared-memory.ts';

/** What each module's entry takes and returns (types only: each module is a script of its own). */
export interface RuntimeModules {
  streams: { deps: StreamsDeps; exports: StreamsExports };
  encoding: { deps: EncodingDeps; exports: EncodingExports };
  'encoding-streams': { deps: EncodingStreamsDeps; exports: EncodingStreamsExports };
  compression: { deps: CompressionDeps; exports: CompressionExports };
  events: { deps: EventsDeps; exports: EventsExports };
  'structured-clone': { deps: StructuredCloneDeps; exports: StructuredCloneExports };
  urlpattern: { deps: UrlPatternDeps; exports: UrlPatternExports };
  webcrypto: { deps: WebCryptoDeps; exports: WebCryptoExports };
  'shared-memory': { deps: SharedMemoryDeps; exports: SharedMemoryExports };
}

type Entry<N extends RuntimeModuleName> = (deps: RuntimeModules[N]['deps']) => RuntimeModules[N]['exports'];
type ScopeEntry = (...scope: unknown[]) => (deps: unknown) => unknown;

export interface ModuleLoader {
  /** The module's exports, loading it first if this isolate has not yet. */
  get<N extends RuntimeModuleName>(name: N): RuntimeModules[N]['exports'];
  /** The module's exports if this isolate loaded it already, else null (never loads). */
  peek<N extends RuntimeModuleName>(name: N): RuntimeModules[N]['exports'] | null;
}

const { create, defineProperty, freeze } = Object;
const hasOwn = Object.hasOwn;

/**
 * The values a module sees for MODULE_SCOPE_NAMES. Read here, while the runtime is built (in the
 * snapshot, before any guest code): the ECMAScript intrinsics as the realm has them; the web names
 * from `web`, resolved when a module loads (some of them are other modules' exports).
 */
export function captureScope(web: Partial<Record<ModuleScopeName, () => unknown>>): () => unknown[] {
  const g = globalThis as unknown as Record<string, unknown>;
  // An array in the names' order (a Map of them cost every isolate several KB more).
  const intrinsics = MODULE_SCOPE_NAMES.map((name) => (hasOwn(web, name) ? undefined : g[name]));
  return () => {
    const values: unknown[] = [];
    // A module's `globalThis` (and `self`) is a frozen stand-in holding the same values, never the real global.
    const stand = create(null) as Record<string, unknown>;
    for (let index = 0; index < MODULE_SCOPE_NAMES.length; index++) {
      const name = MODULE_SCOPE_NAMES[index];
      const value = hasOwn(web, name) ? (web[name] as () => unknown)() : intrinsics[index];
      values.push(value);
      if (value !== undefined) stand[name] = value;
    }
    freeze(stand);
    for (const name of ['globalThis', 'self'] as const) values[MODULE_SCOPE_NAMES.indexOf(name)] = stand;
    return values;
  };
}

/** `deps(name)` makes what the module's entry is given, when it loads. */
export function createModuleLoader(
  load: (name: RuntimeModuleName) => unknown,
  scope: () => unknown[],
  deps: <N extends RuntimeModuleName>(name: N) => RuntimeModules[N]['deps'],
): ModuleLoader {
  const modules = new Map<RuntimeModuleName, unknown>();
  const loading = new Set<RuntimeModuleName>();
  function get<N extends RuntimeModuleName>(name: N): RuntimeModules[N]['exports'] {
    if (modules.has(name)) return modules.get(name) as RuntimeModules[N]['exports'];
    if (loading.has(name)) throw new Error(`the runtime's ${name} module requires itself`);
    loading.add(name);
    try {
      // Deps first: they may load the modules this one's scope names come from (scope reads them with peek).
      const moduleDeps = deps(name);
      const outer = load(name) as ScopeEntry;
      const entry = outer(...scope()) as Entry<N>;
      const exports = entry(moduleDeps);
      hardenLoaded(exports);
      modules.set(name, exports);
      return exports;
    } finally {
      loading.delete(name);
    }
  }
  return {
    get,
    peek: <N extends RuntimeModuleName>(name: N) =>
      (modules.get(name) as RuntimeModules[N]['exports'] | undefined) ?? null,
  };
}

/**
 * Defines globals that stand for a module's exports until it is loaded: accessors whose getter
 * loads the module and turns the global into the plain data property a web global is (writable,
 * configurable, not enumerable); a guest assigning one first simply replaces it. hardenRealm
 * freezes the accessor functions with the other globals.
 */
export function defineLazyGlobals(names: readonly string[], resolve: (name: string) => unknown): void {
  for (const name of names) {
    // One arrow per name serves as getter (no argument) and setter (one): no `prototype` object, and
    // one function instead of two in every isolate (hardenRealm freezes them all).
    const accessor = (...assigned: unknown[]): unknown => {
      const value = assigned.length === 0 ? resolve(name) : assigned[0];
      defineProperty(globalThis, name, { value, writable: true, configurable: true, enumerable: false });
      return value;
    };
    defineProperty(globalThis, name, { get: accessor, set: accessor, configurable: true, enumerable: false });
  }
}

// The primitives one realm's runtime is bound to, in the order of PRIMITIVE_NAMES: the owner's (log,
// fetch, timers: whoever claimed the realm), the stateless ones of host/bridge/primitives.ts, the
// realm's SubtleCrypto with its own key table (host/bridge/webcrypto.ts), and the loader of the
// runtime's lazily loaded modules into this realm's own isolate. Every failure crosses
// as a plain error without host details; nothing here hands guest code an isolated-vm object.

import ivm from 'isolated-vm';
import { ASYNC_PRIMITIVES, PRIMITIVE_NAMES, RUNTIME_MODULES, type BridgePrimitives, type RuntimeModuleName } from '../../sandbox-api/runtime/contract.ts';
import * as primitives from '../bridge/primitives.ts';
import { createSubtle } from '../bridge/webcrypto.ts';
import type { RealmOwner } from './realm.ts';
import { runtimeModuleFilename } from './stack-map.ts';

/** One runtime module's script as a worker holds it, with the V8 code cache its first compile made. */
export interface RuntimeModuleSource {
  code: string;
  cache?: ivm.ExternalCopy<ArrayBuffer>;
}

export type RuntimeModuleSources = ReadonlyMap<RuntimeModuleName, RuntimeModuleSource>;

/** The module scripts as the worker receives them (build.ts buildRuntimeModules), ready to compile. */
export function moduleSources(scripts: Readonly<Record<RuntimeModuleName, string>>): RuntimeModuleSources {
  return new Map(RUNTIME_MODULES.map((name) => [name, { code: scripts[name] }]));
}

/** Host errors must not carry host stacks or paths into the isolate. */
function bridgeError(message: string): Error {
  const error = new Error(message);
  error.stack = `Error: ${message}`;
  return error;
}

/** A host function whose failure crosses as a plain error without host details. */
function safe<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R {
  return (...args: A): R => {
    try {
      return fn(...args);
    } catch {
      throw bridgeError('the host could not complete this call');
    }
  };
}

const isModuleName = (value: unknown): value is RuntimeModuleName => typeof value === 'string' && (RUNTIME_MODULES as readonly string[]).includes(value);

/**
 * Compiles a runtime module into the realm's isolate and returns its entry (the function build.ts
 * wraps it in) for the runtime to call. Runs inside the runtime's synchronous call, on this thread,
 * while the isolate waits for it; each module at most once per realm.
 */
export function moduleLoader(target: () => { isolate: ivm.Isolate; context: ivm.Context }, sources: RuntimeModuleSources) {
  const loaded = new Set<RuntimeModuleName>();
  return (name: unknown): unknown => {
    if (!isModuleName(name)) throw new TypeError('no such runtime module');
    const source = sources.get(name);
    if (source === undefined || loaded.has(name)) throw new TypeError('this runtime module cannot be loaded');
    loaded.add(name);
    const { isolate, context } = target();
    const script = isolate.compileScriptSync(source.code, {
      filename: runtimeModuleFilename(name),
      ...(source.cache ? { cachedData: source.cache } : { produceCachedData: true }),
    });
    const produced = (script as ivm.Script & ivm.CachedDataResult).cachedData;
    if (source.cache === undefined && produced !== undefined) source.cache = produced;
    try {
      return (script.runSync(context, { reference: true }) as ivm.Reference).derefInto();
    } finally {
      script.release();
    }
  };
}

export type PrimitiveImplementations = { [K in keyof BridgePrimitives]: (...args: never[]) => unknown };

/**
 * Implementations as install() and the bootstrap take them, in the order of PRIMITIVE_NAMES:
 * Callbacks for the synchronous ones (each through `wrap`), References for ASYNC_PRIMITIVES.
 */
export function orderedPrimitives(implementations: PrimitiveImplementations, wrap: (fn: (...args: unknown[]) => unknown) => (...args: unknown[]) => unknown = safe): unknown[] {
  return PRIMITIVE_NAMES.map((name) =>
    ASYNC_PRIMITIVES.includes(name) ? new ivm.Reference(implementations[name]) : new ivm.Callback(wrap(implementations[name] as (...args: unknown[]) => unknown)),
  );
}

/**
 * The realm's primitives, in the order install() and the bootstrap take them. `owner` is read at
 * every call (a realm made ahead of time has none until it is claimed), `target` once the isolate
 * and its context exist.
 */
export function realmPrimitives(
  owner: () => RealmOwner,
  fetch: BridgePrimitives['fetch'],
  target: () => { isolate: ivm.Isolate; context: ivm.Context },
  modules: RuntimeModuleSources,
): unknown[] {
  return orderedPrimitives({
    log: (level, text) => owner().log(level, text),
    fetch,
    setTimer: (id, delayMs) => owner().setTimer(id, delayMs),
    clearTimer: (id) => owner().clearTimer(id),
    parseUrl: primitives.parseUrl,
    decodeText: primitives.decodeText,
    randomBytes: primitives.randomBytes,
    // The realm's key table lives in this closure: its isolate's References are all that reach it.
    subtle: createSubtle({ alive: () => !target().isolate.isDisposed, late: () => owner().lateAnswer() }).call,
    loadModule: moduleLoader(target, modules),
  });
}

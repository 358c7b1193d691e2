// The primitives one realm's runtime is bound to, in the order of PRIMITIVE_NAMES: the owner's (log,
// fetch, timers: whoever claimed the realm), the stateless ones of host/bridge/primitives.ts, the
// realm's own text decoding (text-decoding.ts), compression streams (compression.ts) and SubtleCrypto
// with its own key table (webcrypto.ts), and the runtime's lazily loaded modules' script text. Every
// failure crosses as a plain error without host details; nothing here hands guest code an
// isolated-vm object.

import ivm from 'isolated-vm';
import {
  ASYNC_PRIMITIVES,
  PRIMITIVE_NAMES,
  RUNTIME_MODULES,
  type BridgePrimitives,
  type RuntimeModuleName,
} from '../../sandbox-api/runtime/contract.ts';
import * as primitives from '../bridge/primitives.ts';
import { createTextDecoding } from '../bridge/text-decoding.ts';
import { createCompressionTable, type CompressionTable } from '../bridge/compression.ts';
import { createSubtle } from '../bridge/webcrypto.ts';
import { isOwnBytes } from '../bridge/own-bytes.ts';
import type { RealmOwner } from './realm.ts';

/** The runtime modules' scripts as a worker holds them (build.ts buildRuntimeModules), by name. */
export type RuntimeModuleSources = ReadonlyMap<RuntimeModuleName, string>;

/** The module scripts as the worker receives them, ready to hand out. */
export function moduleSources(scripts: Readonly<Record<RuntimeModuleName, string>>): RuntimeModuleSources {
  return new Map(RUNTIME_MODULES.map((name) => [name, scripts[name]]));
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

const isModuleName = (value: unknown): value is RuntimeModuleName =>
  typeof value === 'string' && (RUNTIME_MODULES as readonly string[]).includes(value);

/**
 * Hands the runtime one of its modules' script text (it evaluates it itself: a script compiled and
 * run from inside this synchronous call would end with a microtask checkpoint, running the guest's
 * queued microtasks in the middle of its synchronous code). Each module at most once per realm.
 */
export function moduleLoader(sources: RuntimeModuleSources) {
  const loaded = new Set<RuntimeModuleName>();
  return (name: unknown): string => {
    if (!isModuleName(name)) throw new TypeError('no such runtime module');
    const source = sources.get(name);
    if (source === undefined || loaded.has(name)) throw new TypeError('this runtime module cannot be loaded');
    loaded.add(name);
    return source;
  };
}

/** What a realm holds on the host for its guest beyond single calls: its open compression streams. */
export interface RealmResources {
  compression: CompressionTable;
  /** Set once the realm is gone: late host work for it is dropped. */
  readonly closed: boolean;
  /** The integration's work is over: what it left open is closed. */
  idle(): void;
  /** The realm is gone. */
  close(): void;
}

/** `alive`: whether the realm's isolate is still there (a disposed isolate closes its resources too). */
export function createRealmResources(alive: () => boolean = () => true): RealmResources {
  const compression = createCompressionTable();
  let closed = false;
  return {
    compression,
    get closed() {
      return closed || !alive();
    },
    idle: () => compression.closeAll(),
    close: () => {
      closed = true;
      compression.closeAll();
    },
  };
}

/**
 * A guest fetch whose body is a view on shared memory is refused before anything reads it (the
 * guest could change it while it is sent); the runtime sends none (its bodies are copies).
 */
function refusingSharedBodies(fetch: BridgePrimitives['fetch']): BridgePrimitives['fetch'] {
  return async (request) => {
    const body = typeof request === 'object' && request !== null ? request.body : undefined;
    if (body !== null && body !== undefined && !isOwnBytes(body))
      return { ok: false, code: 'TypeError', message: 'the request body is not bytes of its own' };
    return fetch(request);
  };
}

export type PrimitiveImplementations = { [K in keyof BridgePrimitives]: (...args: never[]) => unknown };

/**
 * Implementations as install() and the bootstrap take them, in the order of PRIMITIVE_NAMES:
 * Callbacks for the synchronous ones (each through `wrap`), References for ASYNC_PRIMITIVES.
 */
export function orderedPrimitives(
  implementations: PrimitiveImplementations,
  wrap: (fn: (...args: unknown[]) => unknown) => (...args: unknown[]) => unknown = safe,
  wrapAsync: (fn: (...args: unknown[]) => unknown) => (...args: unknown[]) => unknown = settled,
): unknown[] {
  return PRIMITIVE_NAMES.map((name) =>
    ASYNC_PRIMITIVES.includes(name)
      ? new ivm.Reference(wrapAsync(implementations[name] as (...args: unknown[]) => unknown))
      : new ivm.Callback(wrap(implementations[name] as (...args: unknown[]) => unknown)),
  );
}

/**
 * An async host function that never rejects: its failures are data (a BridgeResult), as every
 * async primitive answers. A rejection would reach the isolate through isolated-vm only after
 * Node had seen it unhandled, which ends a worker process.
 */
function settled(fn: (...args: unknown[]) => unknown): (...args: unknown[]) => Promise<unknown> {
  return async (...args) => {
    try {
      return await fn(...args);
    } catch {
      return { ok: false, code: 'bridge_error', message: 'the host could not complete this call' };
    }
  };
}

/**
 * What each primitive of a realm does. `owner` is read at every call (a realm made ahead of time
 * has none until it is claimed; the async ones, given apart, answer a failure then).
 */
export function realmImplementations(
  owner: () => RealmOwner,
  async: Pick<BridgePrimitives, 'fetch' | 'fetchRead'>,
  modules: RuntimeModuleSources,
  resources: RealmResources,
): PrimitiveImplementations {
  return {
    log: (level, text) => owner().log(level, text),
    fetch: refusingSharedBodies(async.fetch),
    fetchRead: async.fetchRead,
    fetchCancel: (id) => owner().fetchCancel(id),
    setTimer: (id, delayMs) => owner().setTimer(id, delayMs),
    clearTimer: (id) => owner().clearTimer(id),
    parseUrl: primitives.parseUrl,
    setUrlComponent: primitives.setUrlComponent,
    decodeText: createTextDecoding(),
    randomBytes: primitives.randomBytes,
    compressionOpen: (format, decompress) => resources.compression.open(format, decompress),
    compressionWrite: (id, input, finish) => resources.compression.write(id, input, finish),
    compressionClose: (id) => resources.compression.close(id),
    // The realm's key table lives in this closure: its isolate's References are all that reach it.
    subtle: createSubtle({ alive: () => !resources.closed, late: () => owner().lateAnswer() }).call,
    loadModule: moduleLoader(modules),
  };
}

/** The realm's primitives, in the order install() and the bootstrap take them (realmImplementations). */
export function realmPrimitives(
  owner: () => RealmOwner,
  async: Pick<BridgePrimitives, 'fetch' | 'fetchRead'>,
  modules: RuntimeModuleSources,
  resources: RealmResources = createRealmResources(),
): unknown[] {
  return orderedPrimitives(realmImplementations(owner, async, modules, resources));
}

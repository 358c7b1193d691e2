// A prepared realm: a new isolate with its context and the bootstrapped runtime, no guest code run
// in it yet, and bound to no integration until claim(). Its per-integration primitives (log, fetch,
// timers) reach the integration only through a host-side switch set once at claim, so a realm made
// ahead of time (isolate-pool.ts) never holds, and never exposes, anything of whoever made it.

import ivm from 'isolated-vm';
import type {
  BridgeRequest,
  BridgeResponse,
  BridgeResult,
  LogLevel,
  WireAnswer,
} from '../../sandbox-api/runtime/contract.ts';
import * as primitives from '../bridge/primitives.ts';
import {
  createRealmResources,
  realmPrimitives,
  type RealmResources,
  type RuntimeModuleSources,
} from './realm-primitives.ts';
import { bootstrapRuntime } from './runtime-snapshot.ts';
import { RUNTIME_FILENAME } from './stack-map.ts';
import { WARM_DISPATCHES, WARM_ENTRY, WARM_ENVIRONMENT_JSON, WARM_URL, warmEventJson } from './warm-up.ts';

/**
 * The runtime every isolate of this worker starts with: the startup snapshot (runtime-snapshot.ts)
 * when the worker could build one, else the runtime script run in each new isolate (with its V8
 * code cache).
 */
export interface RuntimeSource {
  code: string;
  cache?: ivm.ExternalCopy<ArrayBuffer>;
  snapshot?: ivm.ExternalCopy<ArrayBuffer>;
  /**
   * The lazily loaded runtime modules (realm-primitives.ts), compiled into an isolate when its guest first needs one.
   */
  modules: RuntimeModuleSources;
}

/** What a claimed realm's per-integration primitives call: the claiming integration's handlers. */
export interface RealmOwner {
  log(level: LogLevel, text: string): void;
  fetch(request: BridgeRequest): Promise<BridgeResult<BridgeResponse>>;
  /** The next bytes of a fetch's body that goes on at the host (null at its end). */
  fetchRead(id: number): Promise<BridgeResult<Uint8Array | null>>;
  /** Aborts a fetch, or cancels its body. */
  fetchCancel(id: number): void;
  setTimer(id: number, delayMs: number): void;
  clearTimer(id: number): void;
  /**
   * Whether an answer of the realm's crypto.subtle arriving now comes after the integration
   * finished its work; such an answer is dropped (counted as abandoned, like a late fetch).
   */
  lateAnswer(): boolean;
}

export interface PreparedRealm {
  isolate: ivm.Isolate;
  context: ivm.Context;
  dispatch: ivm.Reference<
    (
      eventJson: string,
      environmentJson: string | null,
      fetchBody: Uint8Array | null,
      parsedUrlsJson: string | null,
    ) => Promise<WireAnswer>
  >;
  drain: ivm.Reference<(eventId: string) => Promise<void>>;
  fireTimer: ivm.Reference<(id: number) => void>;
  pullBody: ivm.Reference<(id: number) => Promise<Uint8Array | null>>;
  cancelBody: ivm.Reference<(id: number, reason: string) => Promise<void>>;
  setEntry: ivm.Reference<(namespace: unknown) => void>;
  /** What the realm holds on the host for its guest (open compression streams). */
  resources: RealmResources;
  /** Binds the realm's primitives to one integration, once; a second claim throws. */
  claim(owner: RealmOwner): void;
  /** Whether claim() was called (a claimed realm may have run guest code: never reused). */
  readonly claimed: boolean;
}

/**
 * A safety net for the runtime's own start (trusted code: install and hardening), which is not
 * charged to the guest's deadline; it only stops a runtime bug from holding a dispatch forever.
 */
export const RUNTIME_START_TIMEOUT_MS = 30_000;

/**
 * Creates an isolate (memory limit applied here, as to every isolate) with the runtime bound to a
 * switch that no integration holds yet. Runs only our runtime: no guest code, no guest cachedData.
 */
export async function prepareRealm(
  runtime: RuntimeSource,
  memoryLimitMb: number,
  options: { warm?: boolean } = {},
): Promise<PreparedRealm> {
  let owner: RealmOwner | null = null;
  // Before claim() nothing may run in the realm but the runtime's own start, which calls none of
  // these; a call here would be a runtime bug, answered like any host failure.
  const current = (): RealmOwner => {
    if (owner === null) throw new Error('unclaimed realm');
    return owner;
  };
  const fetch = async (request: BridgeRequest): Promise<BridgeResult<BridgeResponse>> => {
    if (owner === null) return { ok: false, code: 'TypeError', message: 'network error' };
    return owner.fetch(request);
  };
  const fetchRead = async (id: number): Promise<BridgeResult<Uint8Array | null>> => {
    if (owner === null) return { ok: false, code: 'TypeError', message: 'network error' };
    return owner.fetchRead(id);
  };
  const snapshot = runtime.snapshot;
  const isolate = new ivm.Isolate({ memoryLimit: memoryLimitMb, ...(snapshot ? { snapshot } : {}) });
  try {
    const context = await isolate.createContext();
    const resources = createRealmResources(() => !isolate.isDisposed);
    const bound = realmPrimitives(current, { fetch, fetchRead }, runtime.modules, resources);
    // From the snapshot the realm is built and hardened already: one call binds it.
    const api = snapshot
      ? await bootstrapRuntime(context, bound, RUNTIME_START_TIMEOUT_MS)
      : await installRuntime(runtime, isolate, context, bound);
    // Read synchronously: plain data properties of the runtime's own frozen object, in a realm no
    // guest code has run in (four hops to the isolate's thread and back cost ~0.25 ms per realm).
    const realm: PreparedRealm = {
      isolate,
      context,
      dispatch: api.getSync('dispatchWire', { reference: true }),
      drain: api.getSync('drain', { reference: true }),
      fireTimer: api.getSync('fireTimer', { reference: true }),
      pullBody: api.getSync('pullBody', { reference: true }),
      cancelBody: api.getSync('cancelBody', { reference: true }),
      setEntry: api.getSync('setEntry', { reference: true }),
      resources,
      claim(next: RealmOwner): void {
        if (owner !== null) throw new Error('this realm was claimed already');
        owner = next;
      },
      get claimed(): boolean {
        return owner !== null;
      },
    };
    api.release();
    if (options.warm === true) await warmUp(realm);
    return realm;
  } catch (error) {
    if (!isolate.isDisposed) isolate.dispose();
    throw error;
  }
}

/**
 * Runs WARM_DISPATCHES events through the runtime with our stand-in entry, then unsets the entry.
 * V8 compiles the runtime's functions lazily in each new context; a warmed realm's first real
 * dispatch is several times faster. Only for realms made ahead of time (the warm-up costs more
 * than it saves on a start that waits for it).
 */
async function warmUp(realm: PreparedRealm): Promise<void> {
  const script = await realm.isolate.compileScript(WARM_ENTRY, { filename: 'sandbox-warm-up.js' });
  const entry = (await script.run(realm.context, {
    reference: true,
    timeout: RUNTIME_START_TIMEOUT_MS,
  })) as ivm.Reference;
  await realm.setEntry.apply(undefined, [entry.derefInto()], { timeout: RUNTIME_START_TIMEOUT_MS });
  entry.release();
  const record = primitives.parseUrl(WARM_URL, undefined);
  for (let i = 0; i < WARM_DISPATCHES; i++) {
    // As the worker sends them: the environment text once, then null (kept parsed in the realm).
    await realm.dispatch.apply(
      undefined,
      [
        warmEventJson(i),
        i === 0 ? WARM_ENVIRONMENT_JSON : null,
        null,
        i === 0 ? JSON.stringify([[WARM_URL, record]]) : null,
      ],
      {
        arguments: { copy: true },
        result: { promise: true, copy: true },
        timeout: RUNTIME_START_TIMEOUT_MS,
      },
    );
  }
  await realm.setEntry.apply(undefined, [undefined], { timeout: RUNTIME_START_TIMEOUT_MS });
}

/** Without a snapshot: runs the runtime script in the new context and install()s it (which hardens the realm). */
async function installRuntime(
  runtime: RuntimeSource,
  isolate: ivm.Isolate,
  context: ivm.Context,
  bound: unknown[],
): Promise<ivm.Reference> {
  const runtimeScript = await isolate.compileScript(runtime.code, {
    filename: RUNTIME_FILENAME,
    ...(runtime.cache ? { cachedData: runtime.cache } : { produceCachedData: true }),
  });
  const produced = (runtimeScript as ivm.Script & ivm.CachedDataResult).cachedData;
  if (!runtime.cache && produced) runtime.cache = produced;
  const install = (await runtimeScript.run(context, {
    reference: true,
    timeout: RUNTIME_START_TIMEOUT_MS,
  })) as ivm.Reference;
  const api = (await install.apply(undefined, bound, {
    result: { reference: true },
    timeout: RUNTIME_START_TIMEOUT_MS,
  })) as ivm.Reference;
  install.release();
  return api;
}

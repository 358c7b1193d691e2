// The runtime's startup snapshot, on the worker side: built once per worker process from our own
// snapshot script (sandbox-api/runtime/snapshot.ts; never from guest code or guest cachedData),
// and the one call that binds a context made from it. isolated-vm's createSnapshot is synchronous
// and unprotected, so it only ever runs our runtime; a script that throws makes it throw.

import ivm from 'isolated-vm';
import { ASYNC_PRIMITIVES, PRIMITIVE_NAMES, type BridgePrimitives } from '../../sandbox-api/runtime/contract.ts';
import { RUNTIME_FILENAME } from './stack-map.ts';
import { WARM_DISPATCHES, WARM_ENTRY, WARM_ENVIRONMENT_JSON, WARM_URL, warmEventJson } from './warm-up.ts';

/** Inert stand-ins for the primitives during the snapshot's warm-up (source text, in the isolate). */
const STAND_INS: Record<keyof BridgePrimitives, string> = {
  log: '() => {}',
  fetch: "async () => ({ ok: false, code: 'TypeError', message: 'warm-up' })",
  fetchRead: "async () => ({ ok: false, code: 'TypeError', message: 'warm-up' })",
  fetchCancel: '() => {}',
  setTimer: '() => {}',
  clearTimer: '() => {}',
  parseUrl: 'record',
  setUrlComponent: '() => null',
  decodeText: "() => ({ ok: true, value: '' })",
  randomBytes: '(length) => new Uint8Array(length)',
  compressionOpen: "() => ({ ok: false, code: 'TypeError', message: 'warm-up' })",
  compressionWrite: "async () => ({ ok: false, code: 'TypeError', message: 'warm-up' })",
  compressionClose: '() => {}',
  subtle: "async () => ({ ok: false, code: 'OperationError', message: 'warm-up' })",
  loadModule: "() => { throw new Error('no runtime module during the warm-up'); }",
};
// Async primitives cross as References: their stand-ins have the one method the runtime calls.
const standIns = PRIMITIVE_NAMES.map((name) =>
  ASYNC_PRIMITIVES.includes(name) ? `{ apply: ${STAND_INS[name]} }` : STAND_INS[name],
).join(', ');

/**
 * Runs in a throwaway context while the snapshot is taken, so the code that every new isolate runs
 * first (bootstrap, hardening of what was deferred, a dispatch) is compiled into the snapshot.
 * Its primitives are inert stand-ins; nothing it does stays in the snapshot's heap.
 */
const WARM_UP = `"use strict"; (() => {
  const record = (href) => ({
    href, origin: 'https://warm-up.invalid', protocol: 'https:', username: '', password: '',
    host: 'warm-up.invalid', hostname: 'warm-up.invalid', port: '', pathname: href.slice(href.indexOf('/', 8)),
    search: '', hash: '',
  });
  const api = globalThis.__ih_bootstrap(${standIns});
  api.setEntry(${WARM_ENTRY.replace(/^"use strict"; /, '')});
  const url = ${JSON.stringify(WARM_URL)};
  const events = [${Array.from({ length: WARM_DISPATCHES }, (_, i) => JSON.stringify(warmEventJson(i))).join(', ')}];
  for (let i = 0; i < events.length; i++) {
    const environment = i === 0 ? ${JSON.stringify(WARM_ENVIRONMENT_JSON)} : null;
    void api.dispatchWire(events[i], environment, null, JSON.stringify([[url, record(url)]]));
  }
})();`;

export function createRuntimeSnapshot(snapshotScript: string): ivm.ExternalCopy<ArrayBuffer> {
  return ivm.Isolate.createSnapshot([{ code: snapshotScript, filename: RUNTIME_FILENAME }], WARM_UP);
}

/**
 * Binds a context made from the snapshot to this worker's primitives (the same arguments, in the
 * same order, as install(): realm-primitives.ts) and returns the RuntimeApi. It must run before any
 * guest code: the bootstrap global exists until this call deletes it.
 */
export async function bootstrapRuntime(
  context: ivm.Context,
  primitives: unknown[],
  timeoutMs: number,
): Promise<ivm.Reference> {
  // A data property our snapshot defined, read before any guest code exists: no hop needed.
  const bootstrap = context.global.getSync('__ih_bootstrap', { reference: true }) as ivm.Reference;
  try {
    return (await bootstrap.apply(undefined, primitives, {
      result: { reference: true },
      timeout: timeoutMs,
    })) as ivm.Reference;
  } finally {
    bootstrap.release();
  }
}

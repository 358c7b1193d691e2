// The runtime's startup snapshot, on the worker side: built once per worker process from our own
// snapshot script (sandbox-api/runtime/snapshot.ts; never from guest code or guest cachedData),
// and the one call that binds a context made from it. isolated-vm's createSnapshot is synchronous
// and unprotected, so it only ever runs our runtime; a script that throws makes it throw.

import ivm from 'isolated-vm';
import { RUNTIME_FILENAME } from './stack-map.ts';
import { WARM_DISPATCHES, WARM_ENTRY, WARM_ENVIRONMENT_JSON, WARM_URL, warmEventJson } from './warm-up.ts';

/**
 * Runs in a throwaway context while the snapshot is taken, so the code that every new isolate runs
 * first (bootstrap, hardening of what was deferred, a dispatch) is compiled into the snapshot.
 * Its primitives are inert stand-ins; nothing it does stays in the snapshot's heap.
 */
const WARM_UP = `"use strict"; (() => {
  const record = (href) => ({ href, origin: 'https://warm-up.invalid', protocol: 'https:', username: '', password: '', host: 'warm-up.invalid', hostname: 'warm-up.invalid', port: '', pathname: href.slice(href.indexOf('/', 8)), search: '', hash: '' });
  const api = globalThis.__ih_bootstrap(() => {}, { apply: async () => ({ ok: false, code: 'TypeError', message: 'warm-up' }) }, () => {}, () => {}, record,
    () => ({ ok: true, value: '' }), (length) => new Uint8Array(length), () => new Uint8Array(32), () => new Uint8Array(32));
  api.setEntry(${WARM_ENTRY.replace(/^"use strict"; /, '')});
  const url = ${JSON.stringify(WARM_URL)};
  const events = [${Array.from({ length: WARM_DISPATCHES }, (_, i) => JSON.stringify(warmEventJson(i))).join(', ')}];
  for (let i = 0; i < events.length; i++) {
    void api.dispatchWire(events[i], i === 0 ? ${JSON.stringify(WARM_ENVIRONMENT_JSON)} : null, null, JSON.stringify([[url, record(url)]]));
  }
})();`;

export function createRuntimeSnapshot(snapshotScript: string): ivm.ExternalCopy<ArrayBuffer> {
  return ivm.Isolate.createSnapshot([{ code: snapshotScript, filename: RUNTIME_FILENAME }], WARM_UP);
}

/**
 * Binds a context made from the snapshot to this worker's primitives (the same arguments, in the
 * same order, as install(), but fetch as the host Reference itself) and returns the RuntimeApi.
 * It must run before any guest code: the bootstrap global exists until this call deletes it.
 */
export async function bootstrapRuntime(context: ivm.Context, callbacks: ivm.Callback[], fetch: ivm.Reference, timeoutMs: number): Promise<ivm.Reference> {
  // A data property our snapshot defined, read before any guest code exists: no hop needed.
  const bootstrap = context.global.getSync('__ih_bootstrap', { reference: true }) as ivm.Reference;
  try {
    return (await bootstrap.apply(undefined, [callbacks[0], fetch, ...callbacks.slice(1)], { result: { reference: true }, timeout: timeoutMs })) as ivm.Reference;
  } finally {
    bootstrap.release();
  }
}

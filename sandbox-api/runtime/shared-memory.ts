// SharedArrayBuffer in the realm without shared memory ever crossing to the host. Its global is an
// accessor until first read, which loads the shared-memory module (modules/shared-memory.ts) and
// from then on copies every value that crosses (bind.ts, dispatch.ts) out of shared memory. Before
// that read no shared memory can exist here: the global is the only way to it (WebAssembly, whose
// shared Memory would be another, is removed). It never hands the class out before the copy is in place.
import { defineLazyGlobals } from './modules.ts';
import { realmSharedArrayBuffer } from './late-intrinsics.ts';
import type { SharedMemoryExports } from './modules/shared-memory.ts';

let load: (() => SharedMemoryExports) | null = null;
let copy: ((value: unknown) => unknown) | null = null;

/** How the module is loaded (install.ts defineRuntime). */
export function bindSharedMemory(loader: () => SharedMemoryExports): void {
  load = loader;
}

/** Called when a realm begins, before any guest code, once V8 added its SharedArrayBuffer (install.ts beginRealm). */
export function defineSharedArrayBuffer(): void {
  if (realmSharedArrayBuffer() === undefined) return;
  defineLazyGlobals(['SharedArrayBuffer'], () => {
    if (load === null) throw new Error('the runtime could not load its shared-memory module');
    const exports = load();
    copy = exports.unshared;
    return exports.SharedArrayBuffer;
  });
}

/** Whether a guest may hold shared memory: the copy is needed from then on. */
export const sharedMemoryInUse = (): boolean => copy !== null;

/** `value` as it may cross to the host: as it is while no shared memory can exist, else copied out of it. */
export function crossing<T>(value: T): T {
  return copy === null ? value : (copy(value) as T);
}

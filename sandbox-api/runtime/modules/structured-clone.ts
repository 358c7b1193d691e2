// The runtime's structured-clone module, loaded into an isolate only when a guest first calls
// structuredClone (modules.ts): the HTML standard's StructuredSerializeInternal and
// StructuredDeserialize fused into one walk (clone-types.ts says how each kind is recognised),
// with the `transfer` option for ArrayBuffers. Never in the snapshot; never reaches a bridge.
import { createKinds, type CloneDeps } from './structured-clone/clone-types.ts';

export type { CloneDeps as StructuredCloneDeps } from './structured-clone/clone-types.ts';

const { defineProperty, keys } = Object;
const hasOwn = Object.hasOwn;

export function createStructuredClone(deps: CloneDeps) {
  const kinds = createKinds(deps);
  const dataCloneError = kinds.dataCloneError;

  /** Copies `value`'s own enumerable string-keyed properties, read with Get, onto `out`. */
  function copyProperties(value: object, out: object, memory: Map<object, unknown>): void {
    for (const key of keys(value)) {
      // A getter run earlier may have deleted a later property: the standard skips those.
      if (!hasOwn(value, key)) continue;
      const copy = clone((value as Record<string, unknown>)[key], memory);
      // A fresh object's only inherited setter that would not define an own property is __proto__.
      if (key === '__proto__')
        defineProperty(out, key, { value: copy, writable: true, enumerable: true, configurable: true });
      else (out as Record<string, unknown>)[key] = copy;
    }
  }

  function clone(value: unknown, memory: Map<object, unknown>): unknown {
    if (typeof value === 'symbol') throw dataCloneError(`${String(value)} could not be cloned.`);
    if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return value;
    const known = memory.get(value);
    if (known !== undefined) return known;
    if (typeof value === 'function') throw dataCloneError(`${kinds.describe(value)} could not be cloned.`);
    const kind = kinds.classify(value);
    switch (kind) {
      case 'map': {
        const out = new Map();
        memory.set(value, out);
        // The entries as they are now: keys and values the walk reaches are not visited again.
        for (const [key, entry] of kinds.mapEntries(value)) out.set(clone(key, memory), clone(entry, memory));
        return out;
      }
      case 'set': {
        const out = new Set();
        memory.set(value, out);
        for (const entry of kinds.setValues(value)) out.add(clone(entry, memory));
        return out;
      }
      case 'array': {
        const out = new Array(kinds.arrayLength(value));
        memory.set(value, out);
        copyProperties(value, out, memory);
        return out;
      }
      case 'error': {
        const out = kinds.newError(value);
        memory.set(value, out);
        kinds.copyCause(value, out, (cause) => clone(cause, memory));
        return out;
      }
      case 'object': {
        const out = {};
        memory.set(value, out);
        copyProperties(value, out, memory);
        return out;
      }
      default: {
        // Leaf kinds (wrappers, Date, RegExp, buffers, views, Blob, File, DOMException).
        const out = kinds.cloneLeaf(kind, value, (buffer) => clone(buffer, memory));
        memory.set(value, out);
        return out;
      }
    }
  }

  function structuredClone(value: unknown, options?: unknown): unknown {
    if (arguments.length < 1)
      throw new TypeError("Failed to execute 'structuredClone': 1 argument required, but only 0 present.");
    const transfer = kinds.transferList(options);
    // A transferred ArrayBuffer is cloned like any other (the walk copies its contents, so the
    // clone is whole even if the walk fails halfway); only afterwards is the original detached.
    const copy = clone(value, new Map<object, unknown>());
    // Detached only once the whole value is cloned: a clone that fails leaves them as they were.
    for (const buffer of transfer) kinds.detach(buffer);
    return copy;
  }

  return { structuredClone };
}

export type StructuredCloneExports = ReturnType<typeof createStructuredClone>;

export default createStructuredClone;

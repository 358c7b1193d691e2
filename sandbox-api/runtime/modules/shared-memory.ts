// The runtime's shared-memory module, loaded when a guest first reads the SharedArrayBuffer global
// (shared-memory.ts): the class itself, and the copy every value crossing to the host goes through
// from then on (bind.ts, dispatch.ts). isolated-vm hands a SharedArrayBuffer, or a view on one, to
// the host as the same memory even when asked to copy; here each becomes a copy on a fresh
// ArrayBuffer. It never calls a method of a value and never returns one holding shared memory.

export interface SharedMemoryDeps {
  /** The realm's SharedArrayBuffer, taken before any guest code (late-intrinsics.ts). */
  SharedArrayBuffer: unknown;
  /** A SharedArrayBuffer's byte length by its internal slot; undefined for any other value. */
  sharedBufferLength(value: unknown): number | undefined;
}

type Getter = (...args: never[]) => unknown;
type ViewConstructor = new (buffer: ArrayBuffer) => ArrayBufferView;

/** Deeper than any value the runtime sends; also where a cycle ends. */
const MAX_DEPTH = 32;

export function createSharedMemory(deps: SharedMemoryDeps) {
  const { apply } = Reflect;
  const { defineProperty, getOwnPropertyDescriptor, getPrototypeOf, keys } = Object;
  const { isView } = ArrayBuffer;
  const { isArray } = Array;
  const objectPrototype = Object.prototype;
  const getter = (target: object, key: PropertyKey): Getter => getOwnPropertyDescriptor(target, key)!.get as Getter;
  const TypedArrayPrototype = getPrototypeOf(Uint8Array.prototype) as { set: Getter };
  const typedArraySet = TypedArrayPrototype.set;
  const typedArrayName = getter(TypedArrayPrototype, Symbol.toStringTag);
  const typedArrayBuffer = getter(TypedArrayPrototype, 'buffer');
  const typedArrayOffset = getter(TypedArrayPrototype, 'byteOffset');
  const typedArrayLength = getter(TypedArrayPrototype, 'byteLength');
  const dataViewBuffer = getter(DataView.prototype, 'buffer');
  const dataViewOffset = getter(DataView.prototype, 'byteOffset');
  const dataViewLength = getter(DataView.prototype, 'byteLength');
  // Throws for a SharedArrayBuffer, as for any value that is not an ArrayBuffer.
  const bufferLength = getter(ArrayBuffer.prototype, 'byteLength');
  const TYPED_ARRAYS = new Map<unknown, unknown>([
    ['Int8Array', Int8Array],
    ['Uint8Array', Uint8Array],
    ['Uint8ClampedArray', Uint8ClampedArray],
    ['Int16Array', Int16Array],
    ['Uint16Array', Uint16Array],
    ['Int32Array', Int32Array],
    ['Uint32Array', Uint32Array],
    ['Float32Array', Float32Array],
    ['Float64Array', Float64Array],
    ['BigInt64Array', BigInt64Array],
    ['BigUint64Array', BigUint64Array],
    ['Float16Array', typeof Float16Array === 'undefined' ? undefined : Float16Array],
  ]);

  function isArrayBuffer(value: object): boolean {
    try {
      apply(bufferLength, value, []);
      return true;
    } catch {
      return false;
    }
  }

  /** A fresh ArrayBuffer holding `length` bytes of `buffer` from `offset`. */
  function copied(buffer: object, offset: number, length: number): ArrayBuffer {
    const out = new Uint8Array(length);
    apply(typedArraySet, out, [new Uint8Array(buffer as ArrayBuffer, offset, length)]);
    return apply(typedArrayBuffer, out, []) as ArrayBuffer;
  }

  /** The view itself when its buffer is an ArrayBuffer, else a view of the same kind on a copy of its bytes. */
  function unsharedView(view: object): unknown {
    const name = apply(typedArrayName, view, []);
    const isDataView = name === undefined;
    const buffer = apply(isDataView ? dataViewBuffer : typedArrayBuffer, view, []) as object;
    if (isArrayBuffer(buffer)) return view;
    const copy = copied(
      buffer,
      apply(isDataView ? dataViewOffset : typedArrayOffset, view, []) as number,
      apply(isDataView ? dataViewLength : typedArrayLength, view, []) as number,
    );
    if (isDataView) return new DataView(copy);
    const Kind = TYPED_ARRAYS.get(name) as ViewConstructor | undefined;
    return Kind === undefined ? new Uint8Array(copy) : new Kind(copy);
  }

  /**
   * `value` as it may cross: primitives and views on an ArrayBuffer as they are; a view on a
   * SharedArrayBuffer as a view of the same kind on a copy; a SharedArrayBuffer as an ArrayBuffer
   * copy; arrays and other objects as fresh arrays and plain objects of their own enumerable
   * properties, each value read once and walked (the contract carries no other kind of object).
   */
  function unshared(value: unknown, depth = 0): unknown {
    if (typeof value !== 'object' || value === null) return value;
    if (depth > MAX_DEPTH) throw new TypeError('a value crossing to the host is nested too deeply');
    if (isView(value)) return unsharedView(value);
    if (isArray(value)) {
      const items = value as unknown[];
      const length = items.length;
      const out: unknown[] = [];
      for (let index = 0; index < length; index++) out[index] = unshared(items[index], depth + 1);
      return out;
    }
    // The brand checks throw for most objects: plain ones (all the runtime sends) skip them, and a
    // buffer posing as one is rebuilt below as a plain object, which holds no memory.
    const prototype = getPrototypeOf(value);
    if (prototype !== objectPrototype && prototype !== null) {
      if (isArrayBuffer(value)) return value;
      const shared = deps.sharedBufferLength(value);
      if (shared !== undefined) return copied(value, 0, shared);
    }
    const source = value as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    const names = keys(source);
    for (let index = 0; index < names.length; index++) {
      const key = names[index];
      const item = unshared(source[key], depth + 1);
      // Defined, not assigned: `__proto__` and the other keys Object.prototype has must stay own data.
      if (key in objectPrototype)
        defineProperty(out, key, { value: item, writable: true, enumerable: true, configurable: true });
      else out[key] = item;
    }
    return out;
  }

  return { SharedArrayBuffer: deps.SharedArrayBuffer, unshared: (value: unknown): unknown => unshared(value) };
}

export type SharedMemoryExports = ReturnType<typeof createSharedMemory>;

export default createSharedMemory;

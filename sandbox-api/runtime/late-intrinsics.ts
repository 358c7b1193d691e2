// The intrinsics V8 adds to each context after the runtime's snapshot was taken (Float16Array,
// SharedArrayBuffer), taken once per realm before any guest code runs, so the runtime never reads
// them from the global object a guest may have rebound.

const { apply } = Reflect;
const { getOwnPropertyDescriptor } = Object;

let float16Array: unknown;
let sharedArrayBuffer: unknown;
/** SharedArrayBuffer.prototype.byteLength's getter: a brand check (it throws for anything else). */
let sharedByteLength: ((this: unknown) => number) | undefined;

/** Called when a realm begins (install.ts beginRealm), before any guest code. */
export function takeLateIntrinsics(): void {
  const g = globalThis as { Float16Array?: unknown; SharedArrayBuffer?: { prototype: object } };
  float16Array = g.Float16Array;
  sharedArrayBuffer = g.SharedArrayBuffer;
  sharedByteLength =
    g.SharedArrayBuffer === undefined
      ? undefined
      : (getOwnPropertyDescriptor(g.SharedArrayBuffer.prototype, 'byteLength')?.get as (this: unknown) => number);
}

/** The realm's own Float16Array, or undefined where V8 has none. */
export const realmFloat16Array = (): unknown => float16Array;

/** The realm's own SharedArrayBuffer (shared-memory.ts stands a lazy global for it), or undefined. */
export const realmSharedArrayBuffer = (): unknown => sharedArrayBuffer;

/**
 * The byte length of a SharedArrayBuffer, known by its internal slot (a prototype or tag a guest
 * changed does not hide it); undefined for any other value. Throws and catches for a value that
 * is not one: callers ask only about values that are likely to be.
 */
export function sharedBufferLength(value: unknown): number | undefined {
  if (sharedByteLength === undefined || typeof value !== 'object' || value === null) return undefined;
  try {
    return apply(sharedByteLength, value, []);
  } catch {
    return undefined;
  }
}

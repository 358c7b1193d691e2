// The intrinsics V8 adds to each context after the runtime's snapshot was taken (Float16Array),
// taken once per realm before any guest code runs, so runtime modules never read them from the
// global object a guest may have rebound.

let float16Array: unknown;

/** Called when a realm begins (install.ts beginRealm), before any guest code. */
export function takeLateIntrinsics(): void {
  float16Array = (globalThis as { Float16Array?: unknown }).Float16Array;
}

/** The realm's own Float16Array, or undefined where V8 has none. */
export const realmFloat16Array = (): unknown => float16Array;

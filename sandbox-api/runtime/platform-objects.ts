// Which objects are the runtime's platform objects (instances of its Web IDL classes, and its
// singletons such as `crypto`), for structuredClone, which must refuse those it cannot serialize.
// Built from what the runtime itself defined, never from globals a guest may have replaced.

// Taken before any guest code: the check is built when a guest first calls structuredClone.
const { getPrototypeOf, values } = Object;
const SafeSet = Set;

const isObject = (value: unknown): value is object =>
  (typeof value === 'object' || typeof value === 'function') && value !== null;

/**
 * `globals` are the values the runtime defined as globals; `modules` the exports of the runtime
 * modules loaded so far (read at every call: a module loaded later adds its classes).
 * `serializableValues` are left out (Blob, File, DOMException: structuredClone copies those).
 */
export function createPlatformCheck(
  globals: readonly unknown[],
  serializableValues: readonly unknown[],
  modules: () => readonly object[],
) {
  const serializable = new SafeSet(serializableValues);
  let known = new SafeSet<unknown>();
  let loaded = -1;
  return (value: object): boolean => {
    const exports = modules();
    if (exports.length !== loaded) {
      known = new SafeSet();
      for (const candidate of [...globals, ...exports.flatMap((entry) => values(entry))]) {
        if (serializable.has(candidate)) continue;
        const prototype =
          typeof candidate === 'function' ? (candidate as { prototype?: unknown }).prototype : candidate;
        if (isObject(prototype)) known.add(prototype);
      }
      loaded = exports.length;
    }
    for (let current: object | null = value; current !== null; current = getPrototypeOf(current))
      if (known.has(current)) return true;
    return false;
  };
}

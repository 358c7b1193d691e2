// The isolate's FinalizationRegistry: the standard constructor and methods, but it never calls a
// cleanup callback. V8's own would run guest code after a garbage collection, while nothing is
// in flight (idle CPU, fetches and log lines no request paid for); the standard lets an
// implementation never call cleanup callbacks, so code that feature-detects it keeps working.

const registered = new WeakMap<object, number>();

function isObject(value: unknown): value is object {
  return (typeof value === 'object' && value !== null) || typeof value === 'function';
}

export class FinalizationRegistry<T = unknown> {
  // The callback is checked and dropped: holding it would only keep the guest's closure alive.
  constructor(cleanupCallback: (heldValue: T) => void) {
    if (typeof cleanupCallback !== 'function') throw new TypeError('FinalizationRegistry: cleanup must be callable');
  }

  register(target: object, heldValue: T, unregisterToken?: object): void {
    if (!isObject(target)) throw new TypeError('FinalizationRegistry.prototype.register: invalid target');
    if (Object.is(target, heldValue))
      throw new TypeError('FinalizationRegistry.prototype.register: target and holdings must not be same');
    if (unregisterToken !== undefined) {
      if (!isObject(unregisterToken))
        throw new TypeError('FinalizationRegistry.prototype.register: invalid unregister token');
      registered.set(unregisterToken, (registered.get(unregisterToken) ?? 0) + 1);
    }
  }

  /** Whether registrations with this token existed (they are forgotten, as the standard says). */
  unregister(unregisterToken: object): boolean {
    if (!isObject(unregisterToken))
      throw new TypeError('FinalizationRegistry.prototype.unregister: invalid unregister token');
    return registered.delete(unregisterToken);
  }

  get [Symbol.toStringTag](): string {
    return 'FinalizationRegistry';
  }
}

// Records, for every error whose stack V8 formats in the realm, its frames as V8's call sites give
// them, so the runtime's reports of an integration's errors show frames the guest cannot rewrite.
// `Error.prepareStackTrace` stays the guest's to set: it decides what `error.stack` says, never these.

const { apply } = Reflect;
const { defineProperty, freeze, getOwnPropertyDescriptor, getPrototypeOf } = Object;
const isArray = Array.isArray;
const SafeError = Error;
const SafeWeakMap = WeakMap;
const errorToString = Error.prototype.toString;

/** Frames of each error V8 formatted (`\n    at …` lines, as V8 prints them), by error. */
const recorded = new SafeWeakMap<object, string>();
/** What the guest last assigned to `Error.prepareStackTrace` (undefined: V8's formatting). */
let guestHook: unknown;
let inGuestHook = false;
let learning = false;
/** V8's `CallSite.prototype.toString` and `stack` getter of this context (learnCallSites). */
let callSiteToString: ((this: unknown) => string) | undefined;
let stackGetter: ((this: unknown) => unknown) | undefined;


/** `\n    at …` for each genuine call site, or null when one is not (a guest's direct call). */
function renderSites(sites: unknown): string | null {
  if (!isArray(sites) || callSiteToString === undefined) return null;
  let frames = '';
  try {
    for (let index = 0; index < sites.length; index++) frames += `\n    at ${apply(callSiteToString, sites[index], [])}`;
  } catch {
    return null;
  }
  return frames;
}

function isObject(value: unknown): value is object {
  return (typeof value === 'object' && value !== null) || typeof value === 'function';
}

/** V8's own rendering: the error's `toString()` and its frames. */
function defaultStack(error: unknown, frames: string): string {
  let header: string;
  try {
    header = apply(errorToString, error, []) as string;
  } catch {
    header = '<error>';
  }
  return header + frames;
}

/**
 * What V8 calls to format a stack (it is what `Error.prepareStackTrace` reads as). Records the
 * frames, then gives the guest's hook, if it set one, the call sites as V8 would have, and
 * otherwise formats as V8 does. A guest hook that calls it (the value it saved) gets V8's format.
 */
const prepareStackTrace = (error: unknown, sites: unknown): unknown => {
  if (learning) {
    const site = isArray(sites) ? sites[0] : undefined;
    callSiteToString = isObject(site) ? (getPrototypeOf(site) as { toString(this: unknown): string }).toString : undefined;
    return '';
  }
  const frames = renderSites(sites);
  // First record wins: V8 formats an error once, and a guest calling this with call sites taken
  // elsewhere cannot replace an error's frames (at most it gives a fresh error real frames of its realm).
  if (frames !== null && isObject(error) && !recorded.has(error)) recorded.set(error, frames);
  if (typeof guestHook === 'function' && !inGuestHook) {
    inGuestHook = true;
    try {
      return apply(guestHook, SafeError, [error, sites]);
    } finally {
      inGuestHook = false;
    }
  }
  if (frames !== null) return defaultStack(error, frames);
  // Called by guest code with objects that are not call sites: its own words, formatted as asked.
  let own = '';
  if (isArray(sites)) for (let index = 0; index < sites.length; index++) own += `\n    at ${String(sites[index])}`;
  return defaultStack(error, own);
};
freeze(prepareStackTrace);

/**
 * Makes `Error.prepareStackTrace` an accessor (configurable until the realm is hardened): reading
 * it gives the runtime's hook, assigning stores the guest's (assigning the hook back, as code that
 * saved and restores it does, clears it). Then learns this context's call sites.
 */
export function installStackCapture(): void {
  defineProperty(SafeError, 'prepareStackTrace', {
    get: function prepareStackTraceGetter() {
      return prepareStackTrace;
    },
    set: function prepareStackTraceSetter(value: unknown) {
      guestHook = value === prepareStackTrace ? undefined : value;
    },
    enumerable: false,
    configurable: true,
  });
  learnCallSites();
}

/**
 * Takes V8's call-site `toString` and `stack` getter of the current context, before any guest code
 * (V8 makes them afresh in a context deserialized from a snapshot: snapshot.ts calls this again).
 */
export function learnCallSites(): void {
  learning = true;
  try {
    void new SafeError('call sites').stack;
  } finally {
    learning = false;
  }
  stackGetter = getOwnPropertyDescriptor(new SafeError('stack'), 'stack')?.get as typeof stackGetter;
}

/**
 * The frames V8 captured for `error` (`\n    at …` lines; '' for none), formatting its stack
 * through V8's own accessor if nothing read it yet; undefined when V8 holds no trace for it (not
 * an error, or its `stack` was replaced before it was formatted).
 */
export function capturedFrames(error: unknown): string | undefined {
  if (!isObject(error)) return undefined;
  let frames = recorded.get(error);
  if (frames === undefined && stackGetter !== undefined) {
    try {
      apply(stackGetter, error, []);
    } catch {
      // Not an error V8 made, or a guest hook that threw: no frames of V8's.
    }
    frames = recorded.get(error);
  }
  return frames;
}

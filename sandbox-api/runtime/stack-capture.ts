// Records, for every error whose stack V8 formats in the realm, its frames as V8's call sites give
// them, so the runtime's reports of an integration's errors show frames the guest cannot rewrite.
// `Error.prepareStackTrace` stays the guest's to set: it decides what `error.stack` says, never these.

const { apply } = Reflect;
const { defineProperty, freeze, getOwnPropertyDescriptor, getPrototypeOf } = Object;
const isArray = Array.isArray;
const SafeError = Error;
const SafeWeakMap = WeakMap;
const SafeWeakSet = WeakSet;
const errorToString = Error.prototype.toString;
const stringReplace = String.prototype.replace;

/** Frames recorded per error at most: a guest's `Error.stackTraceLimit = Infinity` stays bounded. */
const MAX_RECORDED_FRAMES = 64;
const LINE_BREAKS = /[\r\n\u2028\u2029]/g;
const ESCAPED: Record<string, string> = { '\r': '\\r', '\n': '\\n', '\u2028': '\\u2028', '\u2029': '\\u2029' };

/**
 * `text` on one line: a message or a function name the guest chose cannot add a line that looks
 * like a frame V8 captured.
 */
export function oneLine(text: string): string {
  return apply(stringReplace, text, [LINE_BREAKS, (found: string) => ESCAPED[found]]) as string;
}

/** Frames of each error V8 formatted (`\n    at …` lines, as V8 prints them), by error. */
const recorded = new SafeWeakMap<object, string>();
/** Call sites already rendered: handed again (a guest keeps the ones its hook got), they record nothing. */
const seenSites = new SafeWeakSet<object>();
/** What the guest last assigned to `Error.prepareStackTrace` (undefined: V8's formatting). */
let guestHook: ((error: unknown, sites: unknown) => unknown) | undefined;
/** The function `Error.prepareStackTrace` reads as for each guest hook, and back. */
const wrapperOf = new SafeWeakMap<object, (error: unknown, sites: unknown) => unknown>();
const hookOf = new SafeWeakMap<object, (error: unknown, sites: unknown) => unknown>();
let learning = false;
/** V8's `CallSite.prototype.toString` and `stack` getter of this context (learnCallSites). */
let callSiteToString: ((this: unknown) => string) | undefined;
let stackGetter: ((this: unknown) => unknown) | undefined;
/** V8's call-site prototype of this context (for hardening, harden.ts). */
let callSiteProto: object | undefined;

function isObject(value: unknown): value is object {
  return (typeof value === 'object' && value !== null) || typeof value === 'function';
}

/**
 * `\n    at …` for each genuine call site never rendered before (at most MAX_RECORDED_FRAMES),
 * or null when one is not genuine or was rendered already (a guest replaying call sites).
 */
function renderSites(sites: unknown): string | null {
  if (!isArray(sites) || callSiteToString === undefined) return null;
  for (let index = 0; index < sites.length; index++) {
    const site = sites[index];
    if (!isObject(site) || seenSites.has(site)) return null;
  }
  let frames = '';
  try {
    const shown = sites.length < MAX_RECORDED_FRAMES ? sites.length : MAX_RECORDED_FRAMES;
    for (let index = 0; index < shown; index++)
      frames += `\n    at ${oneLine(apply(callSiteToString, sites[index], []))}`;
    if (sites.length > shown) frames += `\n    ... ${sites.length - shown} more`;
  } catch {
    return null;
  }
  for (let index = 0; index < sites.length; index++) seenSites.add(sites[index] as object);
  return frames;
}

/** Records the frames of `sites` for `error`; the frames (or null) for a default rendering. */
function record(error: unknown, sites: unknown): string | null {
  const frames = renderSites(sites);
  // First record wins: V8 formats an error once.
  if (frames !== null && isObject(error) && !recorded.has(error)) recorded.set(error, frames);
  return frames;
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
 * What `Error.prepareStackTrace` reads as while the guest set no hook: records the frames and
 * formats as V8 does. Called by guest code with objects that are not fresh call sites, it records
 * nothing and formats what it was given.
 */
const prepareStackTrace = (error: unknown, sites: unknown): unknown => {
  if (learning) {
    const site = isArray(sites) ? sites[0] : undefined;
    callSiteProto = isObject(site) ? (getPrototypeOf(site) as object) : undefined;
    callSiteToString =
      callSiteProto === undefined ? undefined : (callSiteProto as { toString(this: unknown): string }).toString;
    return '';
  }
  const frames = record(error, sites);
  if (frames !== null) return defaultStack(error, frames);
  let own = '';
  if (isArray(sites)) for (let index = 0; index < sites.length; index++) own += `\n    at ${String(sites[index])}`;
  return defaultStack(error, own);
};
freeze(prepareStackTrace);

/**
 * What `Error.prepareStackTrace` reads as while the guest's `hook` is set: records the frames,
 * then lets the hook decide what `error.stack` says. The same function for the same hook, so code
 * that saves the value and assigns it back restores that hook.
 */
function wrapperFor(hook: (error: unknown, sites: unknown) => unknown): (error: unknown, sites: unknown) => unknown {
  let wrapper = wrapperOf.get(hook);
  if (wrapper === undefined) {
    wrapper = freeze((error: unknown, sites: unknown): unknown => {
      record(error, sites);
      return apply(hook, SafeError, [error, sites]);
    });
    wrapperOf.set(hook, wrapper);
    hookOf.set(wrapper, hook);
  }
  return wrapper;
}

/**
 * Makes `Error.prepareStackTrace` an accessor (configurable until the realm is hardened): reading
 * it gives the runtime's hook, or the wrapper of the guest's; assigning stores the guest's (the
 * runtime's hook, or anything not a function, clears it). Then learns this context's call sites.
 */
export function installStackCapture(): void {
  defineProperty(SafeError, 'prepareStackTrace', {
    get: function prepareStackTraceGetter() {
      return guestHook === undefined ? prepareStackTrace : wrapperFor(guestHook);
    },
    set: function prepareStackTraceSetter(value: unknown) {
      if (typeof value !== 'function' || value === prepareStackTrace) guestHook = undefined;
      else guestHook = hookOf.get(value) ?? (value as (error: unknown, sites: unknown) => unknown);
    },
    enumerable: false,
    configurable: true,
  });
  learnCallSites();
}

/** V8's call-site prototype of this context, as learnCallSites found it. */
export function callSitePrototype(): object | undefined {
  return callSiteProto;
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

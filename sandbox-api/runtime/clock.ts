// The realm's clock behind performance.now(), performance.timeOrigin and Event#timeStamp: whole
// milliseconds since the realm started, never going back. It must never be finer than Date.now(),
// which guests have anyway: a finer clock would be a new timer for timing side channels.

// Taken before any guest code runs (Date is frozen with the realm; the global may be rebound).
const dateNow = Date.now;

let origin = dateNow();
let last = 0;

/**
 * Starts the clock for this realm: install() and the snapshot's bootstrap call it before guest
 * code, so the origin is the realm's own start, never the moment the snapshot was built.
 */
export function startClock(): void {
  origin = dateNow();
  last = 0;
}

/** performance.timeOrigin: when this realm started, in ms since the Unix epoch. */
export function timeOrigin(): number {
  return origin;
}

/**
 * performance.now(): ms since timeOrigin, at Date.now()'s 1 ms resolution. Monotonic: should the
 * wall clock be set back, it stands still until the time catches up instead of going back.
 */
export function clockNow(): number {
  const elapsed = dateNow() - origin;
  if (elapsed > last) last = elapsed;
  return last;
}

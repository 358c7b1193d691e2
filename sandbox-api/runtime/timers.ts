// setTimeout/setInterval for the isolate: the runtime keeps id → callback, the worker keeps the
// clock (setTimer/clearTimer) and calls fireTimer(id) when one is due. Ids are plain numbers.

interface Timer {
  callback: (...args: unknown[]) => unknown;
  args: unknown[];
  intervalMs: number | null;
}

export interface TimerPrimitives {
  setTimer(id: number, delayMs: number): void;
  clearTimer(id: number): void;
  /** Reports an exception thrown by a timer callback (it has no caller to reach). */
  reportError(error: unknown): void;
}

/**
 * The timeout is a WebIDL `long`: ToInt32, so 2 ** 32 is 0 and 2 ** 31 is negative (then 0, as
 * the HTML standard makes every negative timeout), as in browsers. A BigInt or a Symbol throws.
 */
function normalizeDelay(delay: unknown): number {
  const ms = (delay as number) | 0;
  return ms > 0 ? ms : 0;
}

export function createTimers(primitives: TimerPrimitives) {
  const timers = new Map<number, Timer>();
  let nextId = 1;
  // Taken before any guest code runs: a due callback is queued behind the microtasks already
  // waiting (see fire), never through whatever the guest later does to the globals.
  const settled = Promise.resolve();
  const then = Promise.prototype.then;

  function schedule(callback: unknown, delay: unknown, args: unknown[], repeat: boolean): number {
    if (typeof callback !== 'function') {
      throw new TypeError('The "callback" argument must be of type function (string callbacks are not supported)');
    }
    const id = nextId++;
    const delayMs = repeat ? Math.max(1, normalizeDelay(delay)) : normalizeDelay(delay);
    timers.set(id, { callback: callback as Timer['callback'], args, intervalMs: repeat ? delayMs : null });
    primitives.setTimer(id, delayMs);
    return id;
  }

  function clear(id: unknown): void {
    const key = Number(id);
    if (timers.delete(key)) primitives.clearTimer(key);
  }

  // Each global its own function named as HTML spells it, with WebIDL's length (optional
  // arguments do not count); one list of ids, so either clear function clears either kind.
  return {
    setTimeout: (callback: unknown, delay: unknown = 0, ...args: unknown[]): number =>
      schedule(callback, delay, args, false),
    setInterval: (callback: unknown, delay: unknown = 0, ...args: unknown[]): number =>
      schedule(callback, delay, args, true),
    clearTimeout: (id: unknown = 0): void => clear(id),
    clearInterval: (id: unknown = 0): void => clear(id),
    /** The worker says timer `id` is due. Unknown or cleared ids are ignored. */
    fire(id: number): void {
      const timer = timers.get(id);
      if (timer === undefined) return;
      if (timer.intervalMs === null) timers.delete(id);
      else primitives.setTimer(id, timer.intervalMs);
      // A timer is a task of its own: it never runs before the microtasks of the code that was
      // running when it came due. The worker's clock can fire it into the isolate before those had
      // their checkpoint (on a loaded machine), so the callback goes behind them in the queue; it
      // still runs within this same call, under its timeout.
      then.call(settled, () => {
        try {
          timer.callback(...timer.args);
        } catch (error) {
          primitives.reportError(error);
        }
      });
    },
    /** Number of timers still pending (for tests and diagnostics). */
    pendingCount: (): number => timers.size,
  };
}

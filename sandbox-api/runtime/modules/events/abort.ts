// AbortController and AbortSignal (DOM standard: abort, timeout, any, dependent signals) for the
// runtime's events module, and AbortInternals: what the runtime itself (Request, fetch) does with
// signals. AbortInternals is handed to the runtime only; no guest object ever reaches it.
import { enumerable, tag, type EventInternals } from './event.ts';
import type { SignalHooks, TargetInternals, createEventTarget } from './event-target.ts';

/** The runtime's own access to signals (the lead's Request#signal and fetch use these). */
export interface AbortInternals {
  /** Whether `value` is a real AbortSignal (a brand check: prototypes and own properties do not count). */
  isAbortSignal(value: unknown): boolean;
  aborted(signal: object): boolean;
  /** The abort reason (undefined while not aborted), read from the signal's state, never a property. */
  reason(signal: object): unknown;
  /**
   * Adds an abort algorithm, run once, synchronously, when the signal aborts (before its `abort`
   * event). Returns what removes it; nothing is added (and removing does nothing) if the signal is
   * aborted already. While it is added, a dependent or timeout signal is kept alive for it.
   */
  addAlgorithm(signal: object, algorithm: () => void): () => void;
  /** The DOM standard's "create a dependent abort signal" (AbortSignal.any without a guest iterable). */
  dependentSignal(sources: readonly object[]): object;
  /** Signals abort (reason undefined: an AbortError DOMException). Does nothing if aborted already. */
  signalAbort(signal: object, reason?: unknown): void;
  /** A new signal that nothing aborts but signalAbort. */
  newSignal(): object;
}

interface SignalState {
  aborted: boolean;
  reason: unknown;
  algorithms: Set<{ run: () => void }>;
  dependent: boolean;
  /** A dependent signal's sources, held strongly: a dependent that someone listens to keeps them alive. */
  sources: object[];
  /** The signals that depend on this one, held weakly: one dropped by its user must not live on here. */
  dependents: Set<WeakRef<object>>;
  /** Dead WeakRefs are swept from `dependents` when it reaches this size. */
  sweepAt: number;
  timerPending: boolean;
}

export interface AbortDeps {
  EventTarget: ReturnType<typeof createEventTarget>['EventTarget'];
  events: EventInternals;
  targets: TargetInternals;
  /** The runtime's setTimeout (timers run only while the integration has work in flight). */
  setTimeout(callback: () => void, ms: number): unknown;
  reportError(error: unknown): void;
}

/** Timer delays above this would be clamped by setTimeout: such a timeout never fires instead. */
const MAX_TIMER_MS = 2 ** 31 - 1;
const CREATE = Object.freeze({});

const abortError = () => new DOMException('signal is aborted without reason', 'AbortError');

/** Web IDL's [EnforceRange] unsigned long long. */
function enforceRange(value: unknown, what: string): number {
  const number = +(value as number);
  if (!Number.isFinite(number)) throw new TypeError(`${what} is not a finite number.`);
  const integer = Math.trunc(number);
  if (integer < 0 || integer > Number.MAX_SAFE_INTEGER)
    throw new TypeError(`${what} is outside the accepted range of 0 to ${Number.MAX_SAFE_INTEGER}.`);
  return integer === 0 ? 0 : integer;
}

export function createAbortClasses(deps: AbortDeps) {
  const { events, targets } = deps;
  let stateOf!: (signal: object) => SignalState;
  let isSignal!: (value: unknown) => boolean;
  /**
   * Dependent and timeout signals that must outlive their users' references (the DOM standard's
   * garbage collection rules): not aborted, still able to abort, and listened to.
   */
  const pinned = new Set<object>();

  function state(value: unknown): SignalState {
    if (!isSignal(value)) throw new TypeError('Illegal invocation: not an AbortSignal');
    return stateOf(value as object);
  }

  function updatePin(signal: object): void {
    const s = stateOf(signal);
    const able = !s.aborted && (s.timerPending || s.sources.length > 0);
    if (able && (s.algorithms.size > 0 || targets.hasListeners(signal, 'abort'))) pinned.add(signal);
    else pinned.delete(signal);
  }

  function runAbortSteps(signal: object): void {
    const s = stateOf(signal);
    const algorithms = [...s.algorithms];
    s.algorithms.clear();
    for (const algorithm of algorithms) {
      try {
        algorithm.run();
      } catch (error) {
        deps.reportError(error);
      }
    }
    targets.dispatch(signal, events.trusted('abort'));
    updatePin(signal);
  }

  function signalAbort(signal: object, reason: unknown): void {
    const s = state(signal);
    if (s.aborted) return;
    s.aborted = true;
    s.reason = reason === undefined ? abortError() : reason;
    const dependents: object[] = [];
    for (const ref of s.dependents) {
      const dependent = ref.deref();
      if (dependent === undefined) continue;
      const d = stateOf(dependent);
      if (d.aborted) continue;
      d.aborted = true;
      d.reason = s.reason;
      dependents.push(dependent);
    }
    s.dependents.clear();
    runAbortSteps(signal);
    for (const dependent of dependents) runAbortSteps(dependent);
  }

  function link(dependent: object, source: object): void {
    const d = stateOf(dependent);
    if (d.sources.includes(source)) return;
    d.sources.push(source);
    const s = stateOf(source);
    s.dependents.add(new WeakRef(dependent));
    if (s.dependents.size < s.sweepAt) return;
    for (const ref of s.dependents) if (ref.deref() === undefined) s.dependents.delete(ref);
    s.sweepAt = Math.max(16, s.dependents.size * 2);
  }

  function addAlgorithm(signal: object, algorithm: () => void): () => void {
    const s = state(signal);
    if (s.aborted) return () => undefined;
    const entry = { run: algorithm };
    s.algorithms.add(entry);
    updatePin(signal);
    return () => {
      if (s.algorithms.delete(entry)) updatePin(signal);
    };
  }

  class AbortSignal extends deps.EventTarget {
    #state: SignalState;
    /** Defined on the prototype by defineEventHandler below. */
    declare onabort: ((event: object) => unknown) | null;

    static {
      stateOf = (signal) => (signal as AbortSignal).#state;
      isSignal = (value) => typeof value === 'object' && value !== null && #state in value;
    }

    constructor(token?: unknown) {
      if (token !== CREATE) throw new TypeError('Illegal constructor');
      super();
      this.#state = {
        aborted: false,
        reason: undefined,
        algorithms: new Set(),
        dependent: false,
        sources: [],
        dependents: new Set(),
        sweepAt: 16,
        timerPending: false,
      };
    }

    static abort(reason?: unknown): AbortSignal {
      const signal = new AbortSignal(CREATE);
      signal.#state.aborted = true;
      signal.#state.reason = reason === undefined ? abortError() : reason;
      return signal;
    }

    static timeout(milliseconds: unknown): AbortSignal {
      if (arguments.length < 1)
        throw new TypeError("Failed to execute 'timeout' on 'AbortSignal': 1 argument required, but only 0 present.");
      const ms = enforceRange(milliseconds, "Failed to execute 'timeout' on 'AbortSignal': Value");
      const signal = new AbortSignal(CREATE);
      if (ms <= MAX_TIMER_MS) {
        signal.#state.timerPending = true;
        // Weakly: a timeout signal nobody listens to may be collected before its timer fires.
        const ref = new WeakRef(signal);
        deps.setTimeout(() => {
          const target = ref.deref();
          if (target === undefined) return;
          target.#state.timerPending = false;
          signalAbort(target, new DOMException('signal timed out', 'TimeoutError'));
          updatePin(target);
        }, ms);
      }
      return signal;
    }

    static any(signals: unknown): AbortSignal {
      if (arguments.length < 1)
        throw new TypeError("Failed to execute 'any' on 'AbortSignal': 1 argument required, but only 0 present.");
      if (typeof signals !== 'object' || signals === null)
        throw new TypeError(
          "Failed to execute 'any' on 'AbortSignal': The provided value cannot be converted to a sequence.",
        );
      const list: object[] = [];
      for (const signal of signals as Iterable<unknown>) {
        if (!isSignal(signal))
          throw new TypeError("Failed to execute 'any' on 'AbortSignal': Failed to convert value to 'AbortSignal'.");
        list.push(signal as object);
      }
      return dependentSignal(list);
    }

    get aborted(): boolean {
      return state(this).aborted;
    }

    get reason(): unknown {
      return state(this).reason;
    }

    throwIfAborted(): void {
      const s = state(this);
      if (s.aborted) throw s.reason;
    }
  }
  enumerable(AbortSignal, ['abort', 'timeout', 'any']);
  enumerable(AbortSignal.prototype, ['aborted', 'reason', 'throwIfAborted']);
  targets.defineEventHandler(AbortSignal.prototype, 'abort');
  tag(AbortSignal, 'AbortSignal');

  function dependentSignal(sources: readonly object[]): AbortSignal {
    const signal = new AbortSignal(CREATE);
    const s = stateOf(signal);
    for (const source of sources) {
      const from = state(source);
      if (!from.aborted) continue;
      s.aborted = true;
      s.reason = from.reason;
      return signal;
    }
    s.dependent = true;
    for (const source of sources) {
      const from = stateOf(source);
      if (!from.dependent) link(signal, source);
      else for (const inner of from.sources) link(signal, inner);
    }
    return signal;
  }

  let controllerSignal!: (value: unknown) => AbortSignal;

  class AbortController {
    #signal = new AbortSignal(CREATE);

    static {
      controllerSignal = (value) => {
        if (typeof value !== 'object' || value === null || !(#signal in value))
          throw new TypeError('Illegal invocation: not an AbortController');
        return (value as AbortController).#signal;
      };
    }

    get signal(): AbortSignal {
      return controllerSignal(this);
    }

    abort(reason?: unknown): void {
      signalAbort(controllerSignal(this), reason);
    }
  }
  enumerable(AbortController.prototype, ['signal', 'abort']);
  tag(AbortController, 'AbortController');

  const hooks: SignalHooks = {
    isSignal,
    aborted: (signal) => stateOf(signal).aborted,
    onAbort: addAlgorithm,
    listenersChanged(target, type) {
      if (type === 'abort' && isSignal(target)) updatePin(target);
    },
  };
  const internals: AbortInternals = {
    isAbortSignal: isSignal,
    aborted: (signal) => state(signal).aborted,
    reason: (signal) => state(signal).reason,
    addAlgorithm,
    dependentSignal: (sources) => {
      for (const source of sources) state(source);
      return dependentSignal(sources);
    },
    signalAbort,
    newSignal: () => new AbortSignal(CREATE),
  };
  return { AbortSignal, AbortController, hooks, internals };
}

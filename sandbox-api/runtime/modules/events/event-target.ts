// EventTarget (DOM standard) for the runtime's events module: listener lists, dispatch to a single
// target (no tree: the runtime has no nodes), and event handler attributes such as
// AbortSignal#onabort. Listener exceptions are reported, never thrown into the dispatcher.
import { AT_TARGET, NONE, dictionary, enumerable, tag, type EventInternals, type EventState } from './event.ts';

interface Listener {
  callback: object;
  capture: boolean;
  passive: boolean;
  once: boolean;
  removed: boolean;
  /** Drops the abort algorithm of the listener's `signal` option, if any. */
  unlink: (() => void) | null;
}

/** What EventTarget needs of AbortSignal (abort.ts fills it in: each needs the other). */
export interface SignalHooks {
  isSignal(value: unknown): boolean;
  aborted(signal: object): boolean;
  /** Adds an abort algorithm; returns what removes it. */
  onAbort(signal: object, algorithm: () => void): () => void;
  /** A listener or event handler of `type` was added to or removed from `target`. */
  listenersChanged(target: object, type: string): void;
}

export interface TargetInternals {
  isTarget(value: unknown): boolean;
  /** Dispatches an event the runtime made (trusted or not) at `target`; returns !canceled. */
  dispatch(target: object, event: object): boolean;
  /** Whether `target` has a listener (or event handler) for `type`. */
  hasListeners(target: object, type: string): boolean;
  /** Defines the `on<type>` event handler attribute on a prototype. */
  defineEventHandler(prototype: object, type: string): void;
}

type Phase = 'capturing' | 'bubbling';

export function createEventTarget(events: EventInternals, reportError: (error: unknown) => void, signals: SignalHooks) {
  let listenersOf!: (target: EventTarget) => Map<string, Listener[]>;
  let handlersOf!: (target: EventTarget) => Map<string, { value: unknown; listener: Listener | null }>;
  let isTarget!: (value: unknown) => boolean;

  function listeners(value: unknown): Map<string, Listener[]> {
    if (!isTarget(value)) throw new TypeError('Illegal invocation: not an EventTarget');
    return listenersOf(value as EventTarget);
  }

  function callbackOf(value: unknown, method: string): object | null {
    if (value === undefined || value === null) return null;
    if (typeof value !== 'object' && typeof value !== 'function') {
      throw new TypeError(`Failed to execute '${method}' on 'EventTarget': parameter 2 is not of type 'Object'.`);
    }
    return value;
  }

  function captureOf(options: unknown): boolean {
    if (typeof options !== 'object' && typeof options !== 'function') return Boolean(options);
    return options === null ? false : Boolean((options as { capture?: unknown }).capture);
  }

  function add(target: EventTarget, type: string, listener: Listener): void {
    const map = listenersOf(target);
    let list = map.get(type);
    if (list === undefined) map.set(type, (list = []));
    list.push(listener);
  }

  function remove(target: EventTarget, type: string, listener: Listener): void {
    listener.removed = true;
    listener.unlink?.();
    listener.unlink = null;
    const map = listenersOf(target);
    const list = map.get(type);
    if (list === undefined) return;
    const index = list.indexOf(listener);
    if (index !== -1) list.splice(index, 1);
    if (list.length === 0) map.delete(type);
    signals.listenersChanged(target, type);
  }

  function call(listener: Listener, event: object, s: EventState): void {
    const callback = listener.callback;
    try {
      if (typeof callback === 'function') {
        Reflect.apply(callback, s.currentTarget, [event]);
      } else {
        const handleEvent = (callback as { handleEvent?: unknown }).handleEvent;
        if (typeof handleEvent !== 'function') throw new TypeError("The listener's handleEvent is not a function");
        Reflect.apply(handleEvent, callback, [event]);
      }
    } catch (error) {
      reportError(error);
    }
  }

  /** The DOM standard's "inner invoke" over a clone of the target's listeners for one phase. */
  function invoke(target: EventTarget, event: object, s: EventState, phase: Phase): void {
    if (s.stopPropagation) return;
    const list = listenersOf(target).get(s.type);
    if (list === undefined) return;
    s.currentTarget = target;
    for (const listener of [...list]) {
      if (listener.removed || listener.capture !== (phase === 'capturing')) continue;
      if (listener.once) remove(target, s.type, listener);
      if (listener.passive) s.inPassiveListener = true;
      call(listener, event, s);
      s.inPassiveListener = false;
      if (s.stopImmediatePropagation) return;
    }
  }

  function dispatch(target: EventTarget, event: object): boolean {
    const s = events.state(event);
    s.dispatching = true;
    s.target = target;
    s.path = [target];
    try {
      s.phase = AT_TARGET;
      invoke(target, event, s, 'capturing');
      invoke(target, event, s, 'bubbling');
    } finally {
      s.phase = NONE;
      s.currentTarget = null;
      s.path = [];
      s.dispatching = false;
      s.stopPropagation = false;
      s.stopImmediatePropagation = false;
    }
    return !s.canceled;
  }

  class EventTarget {
    #listeners = new Map<string, Listener[]>();
    #handlers = new Map<string, { value: unknown; listener: Listener | null }>();

    static {
      listenersOf = (target) => target.#listeners;
      handlersOf = (target) => target.#handlers;
      isTarget = (value) => typeof value === 'object' && value !== null && #listeners in value;
    }

    addEventListener(type: string, callback: unknown, options?: unknown): void {
      const map = listeners(this);
      if (arguments.length < 2)
        throw new TypeError(
          `Failed to execute 'addEventListener' on 'EventTarget': 2 ` +
            `arguments required, but only ${arguments.length} present.`,
        );
      const name = `${type}`;
      const listenerCallback = callbackOf(callback, 'addEventListener');
      let capture = false;
      let once = false;
      let passive = false;
      let signal: object | null = null;
      if (typeof options === 'object' && options !== null) {
        // Dictionary members in Web IDL order: capture, then once, passive, signal.
        const init = dictionary(options, 'options');
        capture = Boolean(init.capture);
        once = Boolean(init.once);
        passive = Boolean(init.passive);
        const given = init.signal;
        if (given !== undefined) {
          if (!signals.isSignal(given))
            throw new TypeError(
              "Failed to execute 'addEventListener' on 'EventTarget': member signal is not of type AbortSignal.",
            );
          signal = given as object;
        }
      } else {
        capture = captureOf(options);
      }
      if (signal !== null && signals.aborted(signal)) return;
      if (listenerCallback === null) return;
      const list = map.get(name);
      if (list !== undefined && list.some((l) => l.callback === listenerCallback && l.capture === capture)) return;
      const listener: Listener = { callback: listenerCallback, capture, passive, once, removed: false, unlink: null };
      add(this, name, listener);
      if (signal !== null) listener.unlink = signals.onAbort(signal, () => remove(this, name, listener));
      signals.listenersChanged(this, name);
    }

    removeEventListener(type: string, callback: unknown, options?: unknown): void {
      const map = listeners(this);
      if (arguments.length < 2)
        throw new TypeError(
          `Failed to execute 'removeEventListener' on 'EventTarget': 2 ` +
            `arguments required, but only ${arguments.length} present.`,
        );
      const name = `${type}`;
      const listenerCallback = callbackOf(callback, 'removeEventListener');
      const capture = captureOf(options);
      const found = map.get(name)?.find((l) => l.callback === listenerCallback && l.capture === capture);
      if (found !== undefined) remove(this, name, found);
    }

    dispatchEvent(event: unknown): boolean {
      listeners(this);
      if (!events.isEvent(event))
        throw new TypeError("Failed to execute 'dispatchEvent' on 'EventTarget': parameter 1 is not of type 'Event'.");
      const s = events.state(event);
      if (s.dispatching || !s.initialized)
        throw new DOMException(
          "Failed to execute 'dispatchEvent' on 'EventTarget': The event is already being dispatched.",
          'InvalidStateError',
        );
      s.trusted = false;
      return dispatch(this, event as object);
    }
  }
  enumerable(EventTarget.prototype, ['addEventListener', 'removeEventListener', 'dispatchEvent']);
  tag(EventTarget, 'EventTarget');

  /** Event handler attributes: one listener per handler, kept in place while the handler changes. */
  function defineEventHandler(prototype: object, type: string): void {
    const name = `on${type}`;
    const accessors = {
      get(this: unknown): unknown {
        listeners(this);
        return handlersOf(this as EventTarget).get(type)?.value ?? null;
      },
      set(this: unknown, value: unknown): void {
        listeners(this);
        const target = this as EventTarget;
        const handlers = handlersOf(target);
        // [LegacyTreatNonObjectAsNull]: anything but an object (a function included) is null.
        const handler = typeof value === 'object' || typeof value === 'function' ? value : null;
        const entry = handlers.get(type) ?? { value: null, listener: null };
        entry.value = handler;
        handlers.set(type, entry);
        if (handler === null) {
          if (entry.listener !== null) remove(target, type, entry.listener);
          entry.listener = null;
          handlers.delete(type);
          return;
        }
        if (entry.listener !== null) return;
        const callback = function (this: unknown, event: object): void {
          const current = entry.value;
          if (typeof current !== 'function') return;
          const result: unknown = Reflect.apply(current, this, [event]);
          const s = events.state(event);
          if (result === false && s.cancelable && !s.inPassiveListener) s.canceled = true;
        };
        entry.listener = { callback, capture: false, passive: false, once: false, removed: false, unlink: null };
        add(target, type, entry.listener);
        signals.listenersChanged(target, type);
      },
    };
    Object.defineProperty(prototype, name, {
      get: accessors.get,
      set: accessors.set,
      enumerable: true,
      configurable: true,
    });
  }

  const internals: TargetInternals = {
    isTarget,
    dispatch: (target, event) => {
      listeners(target);
      return dispatch(target as EventTarget, event);
    },
    hasListeners: (target, type) => (listenersOf(target as EventTarget).get(type)?.length ?? 0) > 0,
    defineEventHandler,
  };
  return { EventTarget, internals };
}

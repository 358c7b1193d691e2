// Event and CustomEvent (DOM standard) for the runtime's events module: the event object, its
// flags and its init dictionaries. Dispatch is event-target.ts's; the flags it sets live in one
// record per event that only this module can reach (EventInternals), never a guest.

export const NONE = 0;
export const CAPTURING_PHASE = 1;
export const AT_TARGET = 2;
export const BUBBLING_PHASE = 3;

/** The DOM standard's per-event state. Written only by the constructor, initEvent and dispatch. */
export interface EventState {
  type: string;
  bubbles: boolean;
  cancelable: boolean;
  composed: boolean;
  target: object | null;
  currentTarget: object | null;
  phase: number;
  path: object[];
  stopPropagation: boolean;
  stopImmediatePropagation: boolean;
  canceled: boolean;
  inPassiveListener: boolean;
  dispatching: boolean;
  initialized: boolean;
  trusted: boolean;
  timeStamp: number;
}

export interface EventInternals {
  isEvent(value: unknown): boolean;
  /** The event's state; a TypeError for anything that is not an Event. */
  state(value: unknown): EventState;
  /** An event the runtime itself fires (`isTrusted` true), such as AbortSignal's `abort`. */
  trusted(type: string): object;
}

/** WebIDL's dictionary conversion: undefined and null are empty, other non-objects a TypeError. */
export function dictionary(value: unknown, what: string): Record<string, unknown> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' && typeof value !== 'function') throw new TypeError(`${what} is not an object.`);
  return value as Record<string, unknown>;
}

/** Attributes and operations are enumerable on a Web IDL prototype (class syntax makes them not). */
export function enumerable(prototype: object, names: readonly string[]): void {
  for (const name of names) {
    const descriptor = Object.getOwnPropertyDescriptor(prototype, name)!;
    Object.defineProperty(prototype, name, { ...descriptor, enumerable: true });
  }
}

/** A class's `[Symbol.toStringTag]` as Web IDL defines it: a non-writable data property. */
export function tag(target: { prototype: object }, name: string): void {
  Object.defineProperty(target.prototype, Symbol.toStringTag, {
    value: name,
    writable: false,
    enumerable: false,
    configurable: true,
  });
}

function constants(target: object): void {
  const phases = { NONE, CAPTURING_PHASE, AT_TARGET, BUBBLING_PHASE };
  for (const [name, value] of Object.entries(phases))
    Object.defineProperty(target, name, { value, writable: false, enumerable: true, configurable: false });
}

export function createEventClasses(clock: () => number) {
  let stateOf!: (event: Event) => EventState;
  let isEvent!: (value: unknown) => boolean;

  function state(value: unknown): EventState {
    if (!isEvent(value)) throw new TypeError('Illegal invocation: not an Event');
    return stateOf(value as Event);
  }

  function fresh(type: string, init: Record<string, unknown>): EventState {
    // Dictionary members are read in Web IDL order: bubbles, cancelable, composed.
    const bubbles = Boolean(init.bubbles);
    const cancelable = Boolean(init.cancelable);
    const composed = Boolean(init.composed);
    return {
      type,
      bubbles,
      cancelable,
      composed,
      target: null,
      currentTarget: null,
      phase: NONE,
      path: [],
      stopPropagation: false,
      stopImmediatePropagation: false,
      canceled: false,
      inPassiveListener: false,
      dispatching: false,
      initialized: true,
      trusted: false,
      timeStamp: clock(),
    };
  }

  /** The DOM standard's "initialize": what initEvent and initCustomEvent reset. */
  function initialize(s: EventState, type: string, bubbles: unknown, cancelable: unknown): void {
    Object.assign(s, {
      initialized: true,
      stopPropagation: false,
      stopImmediatePropagation: false,
      canceled: false,
      trusted: false,
      target: null,
      type,
      bubbles: Boolean(bubbles),
      cancelable: Boolean(cancelable),
    });
  }

  function cancel(s: EventState): void {
    if (s.cancelable && !s.inPassiveListener) s.canceled = true;
  }

  class Event {
    #state: EventState;

    static {
      stateOf = (event) => event.#state;
      isEvent = (value) => typeof value === 'object' && value !== null && #state in value;
    }

    constructor(type: string, eventInitDict?: unknown) {
      if (arguments.length < 1)
        throw new TypeError("Failed to construct 'Event': 1 argument required, but only 0 present.");
      const name = `${type}`;
      this.#state = fresh(name, dictionary(eventInitDict, "Failed to construct 'Event': The provided value"));
    }

    get type(): string {
      return state(this).type;
    }
    get target(): object | null {
      return state(this).target;
    }
    get srcElement(): object | null {
      return state(this).target;
    }
    get currentTarget(): object | null {
      return state(this).currentTarget;
    }
    composedPath(): object[] {
      return [...state(this).path];
    }
    get eventPhase(): number {
      return state(this).phase;
    }
    stopPropagation(): void {
      state(this).stopPropagation = true;
    }
    get cancelBubble(): boolean {
      return state(this).stopPropagation;
    }
    set cancelBubble(value: boolean) {
      if (value) state(this).stopPropagation = true;
    }
    stopImmediatePropagation(): void {
      const s = state(this);
      s.stopPropagation = true;
      s.stopImmediatePropagation = true;
    }
    get bubbles(): boolean {
      return state(this).bubbles;
    }
    get cancelable(): boolean {
      return state(this).cancelable;
    }
    get returnValue(): boolean {
      return !state(this).canceled;
    }
    set returnValue(value: boolean) {
      if (!value) cancel(state(this));
    }
    preventDefault(): void {
      cancel(state(this));
    }
    get defaultPrevented(): boolean {
      return state(this).canceled;
    }
    get composed(): boolean {
      return state(this).composed;
    }
    get isTrusted(): boolean {
      return state(this).trusted;
    }
    get timeStamp(): number {
      return state(this).timeStamp;
    }
    initEvent(type: string, bubbles = false, cancelable = false): void {
      const s = state(this);
      if (arguments.length < 1)
        throw new TypeError("Failed to execute 'initEvent' on 'Event': 1 argument required, but only 0 present.");
      const name = `${type}`;
      if (!s.dispatching) initialize(s, name, bubbles, cancelable);
    }
  }
  constants(Event);
  constants(Event.prototype);
  enumerable(Event.prototype, [
    'type',
    'target',
    'srcElement',
    'currentTarget',
    'composedPath',
    'eventPhase',
    'stopPropagation',
    'cancelBubble',
    'stopImmediatePropagation',
    'bubbles',
    'cancelable',
    'returnValue',
    'preventDefault',
    'defaultPrevented',
    'composed',
    'isTrusted',
    'timeStamp',
    'initEvent',
  ]);
  tag(Event, 'Event');

  let detailOf!: (event: CustomEvent) => unknown;
  let setDetail!: (event: CustomEvent, detail: unknown) => void;
  let isCustom!: (value: unknown) => boolean;

  class CustomEvent extends Event {
    #detail: unknown;

    static {
      detailOf = (event) => event.#detail;
      setDetail = (event, detail) => {
        event.#detail = detail;
      };
      isCustom = (value) => typeof value === 'object' && value !== null && #detail in value;
    }

    constructor(type: string, eventInitDict?: unknown) {
      if (arguments.length < 1)
        throw new TypeError("Failed to construct 'CustomEvent': 1 argument required, but only 0 present.");
      const init = dictionary(eventInitDict, "Failed to construct 'CustomEvent': The provided value");
      super(type, init);
      const detail = init.detail;
      this.#detail = detail === undefined ? null : detail;
    }

    get detail(): unknown {
      if (!isCustom(this)) throw new TypeError('Illegal invocation: not a CustomEvent');
      return detailOf(this);
    }

    initCustomEvent(type: string, bubbles = false, cancelable = false, detail: unknown = null): void {
      if (!isCustom(this)) throw new TypeError('Illegal invocation: not a CustomEvent');
      if (arguments.length < 1)
        throw new TypeError(
          "Failed to execute 'initCustomEvent' on 'CustomEvent': 1 argument required, but only 0 present.",
        );
      const name = `${type}`;
      const s = state(this);
      if (s.dispatching) return;
      initialize(s, name, bubbles, cancelable);
      setDetail(this, detail);
    }
  }
  enumerable(CustomEvent.prototype, ['detail', 'initCustomEvent']);
  tag(CustomEvent, 'CustomEvent');

  const internals: EventInternals = {
    isEvent,
    state,
    trusted(type) {
      const event = new Event(type);
      stateOf(event).trusted = true;
      return event;
    },
  };
  return { Event, CustomEvent, internals };
}

// The runtime's events module, loaded into an isolate only when it first needs one of its globals
// (modules.ts): Event, CustomEvent, EventTarget, AbortController, AbortSignal and Performance (the
// `performance` object), written from the DOM and High Resolution Time standards (no maintained
// pure-JS library covers AbortSignal.any and timeout), and `abort`: AbortInternals for the runtime
// only, never a global. Never in the snapshot.
import { createAbortClasses } from './events/abort.ts';
import { createEventClasses } from './events/event.ts';
import { createEventTarget, type SignalHooks } from './events/event-target.ts';
import { createPerformance } from './events/performance.ts';

export type { AbortInternals } from './events/abort.ts';

export interface EventsDeps {
  /** performance.now(): ms since timeOrigin (clock.ts). */
  now(): number;
  timeOrigin(): number;
  /** The runtime's setTimeout, for AbortSignal.timeout. */
  setTimeout(callback: () => void, ms: number): unknown;
  /** Reports what an event listener or abort algorithm threw (it has no caller to reach). */
  reportError(error: unknown): void;
}

export function createEvents(deps: EventsDeps) {
  const hooks = {} as SignalHooks;
  const { Event, CustomEvent, internals: events } = createEventClasses(deps.now);
  const { EventTarget, internals: targets } = createEventTarget(events, deps.reportError, hooks);
  const abort = createAbortClasses({
    EventTarget,
    events,
    targets,
    setTimeout: deps.setTimeout,
    reportError: deps.reportError,
  });
  Object.assign(hooks, abort.hooks);
  const { Performance, performance } = createPerformance(EventTarget, { now: deps.now, timeOrigin: deps.timeOrigin });
  return {
    Event,
    CustomEvent,
    EventTarget,
    AbortController: abort.AbortController,
    AbortSignal: abort.AbortSignal,
    Performance,
    performance,
    abort: abort.internals,
  };
}

export type EventsExports = ReturnType<typeof createEvents>;

export default createEvents;

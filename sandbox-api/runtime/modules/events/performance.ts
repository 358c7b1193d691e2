// The Performance interface (High Resolution Time) for the runtime's events module: now(),
// timeOrigin and toJSON() over the realm's clock (clock.ts, 1 ms resolution on purpose: see
// docs/security.md). An EventTarget, as the standard says; the one instance is the `performance` global.
import { enumerable, tag } from './event.ts';
import type { createEventTarget } from './event-target.ts';

export interface PerformanceClock {
  now(): number;
  timeOrigin(): number;
}

const CREATE = Object.freeze({});

export function createPerformance(
  EventTarget: ReturnType<typeof createEventTarget>['EventTarget'],
  clock: PerformanceClock,
) {
  let check!: (value: unknown) => void;

  class Performance extends EventTarget {
    #performance = true;

    static {
      check = (value) => {
        if (typeof value !== 'object' || value === null || !(#performance in value))
          throw new TypeError('Illegal invocation: not a Performance');
      };
    }

    constructor(token?: unknown) {
      if (token !== CREATE) throw new TypeError('Illegal constructor');
      super();
    }

    get timeOrigin(): number {
      check(this);
      return clock.timeOrigin();
    }

    now(): number {
      check(this);
      return clock.now();
    }

    toJSON(): { timeOrigin: number } {
      check(this);
      return { timeOrigin: clock.timeOrigin() };
    }
  }
  enumerable(Performance.prototype, ['timeOrigin', 'now', 'toJSON']);
  tag(Performance, 'Performance');

  return { Performance, performance: new Performance(CREATE) };
}

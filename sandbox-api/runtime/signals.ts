// Request#signal and fetch's abort, on the events module's AbortSignal internals (AbortInternals):
// which signals a Request follows (from `init.signal`, or the Request it was made from), the signal
// it shows (made only when read, so a Request nobody asks loads nothing), and aborting a fetch.
// Never holds a signal's internals where guest code can reach them.
import type { AbortInternals } from './modules/events/abort.ts';

export interface SignalRuntime {
  /** The events module's internals, loading it. */
  internals(): AbortInternals;
  /** The internals if the events module is loaded (no AbortSignal exists before), else null. */
  loadedInternals(): AbortInternals | null;
}

let runtime: SignalRuntime | null = null;

/** Called once by defineRuntime, before any guest code. */
export function bindSignals(value: SignalRuntime): void {
  runtime = value;
}

/**
 * The signals a new Request follows: `init.signal` when the init has one (null: none), else those
 * of the Request it is made from. Throws a TypeError for anything but an AbortSignal.
 */
export function signalSources(init: { signal?: unknown }, inherited: readonly object[]): readonly object[] {
  const signal = init.signal;
  if (signal === undefined) return inherited;
  if (signal === null) return [];
  const internals = runtime?.loadedInternals() ?? null;
  if (internals === null || !internals.isAbortSignal(signal))
    throw new TypeError("Failed to construct 'Request': member signal is not of type AbortSignal.");
  return [signal as object];
}

/** The signal a Request shows: one that follows its sources (the standard's dependent signal). */
export function signalOf(sources: readonly object[]): object {
  if (runtime === null) throw new Error('the sandbox runtime was used before it was bound');
  return runtime.internals().dependentSignal(sources);
}

/**
 * Watches a fetch's signals: `onAbort` runs once, with the reason, when one of them aborts; the
 * returned `reason()` is that reason (undefined while none aborted), and `done()` stops watching.
 * Throws the reason at once when a signal is aborted already.
 */
export function watchAbort(
  sources: readonly object[],
  onAbort: (reason: unknown) => void,
): { aborted(): boolean; reason(): unknown; done(): void } {
  let fired = false;
  let reason: unknown;
  const internals = sources.length === 0 ? null : (runtime?.loadedInternals() ?? null);
  if (internals === null) return { aborted: () => false, reason: () => undefined, done: () => undefined };
  for (const signal of sources) if (internals.aborted(signal)) throw internals.reason(signal);
  const removers = sources.map((signal) =>
    internals.addAlgorithm(signal, () => {
      if (fired) return;
      fired = true;
      reason = internals.reason(signal);
      onAbort(reason);
    }),
  );
  return {
    aborted: () => fired,
    reason: () => reason,
    done: () => {
      for (const remove of removers) remove();
    },
  };
}

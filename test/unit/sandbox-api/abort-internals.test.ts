// The events module's AbortInternals (modules/events/abort.ts): what the runtime itself does with
// signals (a Request's signal, aborting an outbound fetch). Run in Node on the module's own code:
// guests never reach these functions, so only the runtime's side of them is tested here.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { createEvents } from '../../../sandbox-api/runtime/modules/events.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** A full collection once the current job's WeakRef targets are released. */
async function collect(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  gc();
}

function events() {
  const reported: unknown[] = [];
  const timers: (() => void)[] = [];
  const module = createEvents({
    now: () => 1,
    timeOrigin: () => 0,
    setTimeout: (callback) => timers.push(callback),
    reportError: (error) => void reported.push(error),
  });
  return { ...module, reported, timers };
}

describe('AbortInternals', () => {
  it('tell a real AbortSignal by its brand, not by its prototype or own properties', () => {
    const { AbortController, AbortSignal, abort } = events();
    const real = new AbortController().signal;
    expect(abort.isAbortSignal(real)).toBe(true);
    expect(abort.isAbortSignal(AbortSignal.abort())).toBe(true);
    expect(abort.isAbortSignal(Object.create(AbortSignal.prototype))).toBe(false);
    expect(abort.isAbortSignal({ aborted: false, addEventListener() {} })).toBe(false);
    Object.defineProperty(real, 'aborted', { value: true });
    Object.defineProperty(real, 'reason', { value: 'forged' });
    expect([abort.aborted(real), abort.reason(real)]).toEqual([false, undefined]);
    expect(() => abort.aborted({})).toThrow(TypeError);
  });

  it('run abort algorithms once, in order, before the abort event, and report one that throws', () => {
    const { AbortController, abort, reported } = events();
    const controller = new AbortController();
    const calls: string[] = [];
    abort.addAlgorithm(controller.signal, () => calls.push('first'));
    const remove = abort.addAlgorithm(controller.signal, () => calls.push('removed'));
    abort.addAlgorithm(controller.signal, () => {
      throw new Error('algorithm boom');
    });
    abort.addAlgorithm(controller.signal, () => calls.push(`last:${String(abort.reason(controller.signal))}`));
    controller.signal.addEventListener('abort', () => calls.push('event'));
    remove();
    controller.abort('stop');
    controller.abort('again');
    expect(calls).toEqual(['first', 'last:stop', 'event']);
    expect((reported[0] as Error).message).toBe('algorithm boom');
    expect(abort.addAlgorithm(controller.signal, () => calls.push('late'))).toBeTypeOf('function');
    expect(calls).toHaveLength(3);
  });

  it('make a dependent signal that follows its sources (a Request following its init signal)', () => {
    const { AbortController, abort } = events();
    const controller = new AbortController();
    const dependent = abort.dependentSignal([controller.signal]);
    const seen: unknown[] = [];
    abort.addAlgorithm(dependent, () => seen.push(abort.reason(dependent)));
    controller.abort('cancelled');
    expect(seen).toEqual(['cancelled']);
    expect(abort.aborted(abort.dependentSignal([controller.signal]))).toBe(true);
    expect(() => abort.dependentSignal([{}])).toThrow(TypeError);
  });

  it('signal abort on a signal the runtime made, with an AbortError when no reason is given', () => {
    const { abort } = events();
    const signal = abort.newSignal();
    const follower = abort.dependentSignal([signal]);
    abort.signalAbort(signal);
    const reason = abort.reason(follower) as DOMException;
    expect([abort.aborted(signal), reason.name, reason === abort.reason(signal)]).toEqual([true, 'AbortError', true]);
  });

  it('schedule AbortSignal.timeout on the runtime timers, and fire a TimeoutError when the timer is due', () => {
    const { AbortSignal, abort, timers } = events();
    const signal = AbortSignal.timeout(5_000);
    expect(timers).toHaveLength(1);
    expect(abort.aborted(signal)).toBe(false);
    timers[0]();
    expect((abort.reason(signal) as DOMException).name).toBe('TimeoutError');
    // Beyond what a timer can wait (2^31 - 1 ms) a timeout never fires: no timer is set for it.
    AbortSignal.timeout(2 ** 31);
    expect(timers).toHaveLength(1);
  });
});

describe("signals and garbage collection (the DOM standard's rules)", () => {
  it('a source holds its dependent signals weakly: one nobody listens to is collected', async () => {
    const { AbortController, AbortSignal } = events();
    const controller = new AbortController();
    const dropped = new WeakRef(AbortSignal.any([controller.signal]));
    const timeout = new WeakRef(AbortSignal.timeout(1_000));
    await collect();
    expect([dropped.deref(), timeout.deref()]).toEqual([undefined, undefined]);
  });

  it('a dependent or timeout signal that is listened to lives on until it aborts, even when dropped', async () => {
    const { AbortController, AbortSignal, abort, timers } = events();
    const controller = new AbortController();
    const heard: string[] = [];
    AbortSignal.any([controller.signal]).addEventListener('abort', () => heard.push('dependent listener'));
    abort.addAlgorithm(abort.dependentSignal([controller.signal]), () => heard.push('dependent algorithm'));
    AbortSignal.timeout(1_000).onabort = () => heard.push('timeout handler');
    await collect();
    controller.abort();
    timers[0]();
    expect(heard).toEqual(['dependent listener', 'dependent algorithm', 'timeout handler']);
  });

  it('a dependent signal whose listener was removed is no longer kept', async () => {
    const { AbortController, AbortSignal } = events();
    const controller = new AbortController();
    // Made in a function of its own: nothing of this test's frame keeps it across the await.
    const listenedThenNot = () => {
      const listener = () => undefined;
      const dependent = AbortSignal.any([controller.signal]);
      dependent.addEventListener('abort', listener);
      dependent.removeEventListener('abort', listener);
      return new WeakRef(dependent);
    };
    const ref = listenedThenNot();
    await collect();
    expect(ref.deref()).toBeUndefined();
  });
});

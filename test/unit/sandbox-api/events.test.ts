// Event, CustomEvent, EventTarget, AbortController and AbortSignal as guest code sees them in a
// real isolate (the runtime's events module, loaded on first use): DOM standard dispatch,
// listener options, event handlers, abort, timeout and any, and what errors look like.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Harness } from './harness.ts';

let harness: Harness;
beforeEach(async () => {
  harness = await Harness.create();
});
afterEach(() => harness.dispose());

/** Runs a guest async function body and returns its JSON-able result. */
const run = async <T>(body: string): Promise<T> =>
  JSON.parse(await harness.evaluate<string>(`(async () => JSON.stringify(await (async () => { ${body} })()))()`));

describe('the events globals', () => {
  it('are accessors that load the events module on first use, each then a plain web global', async () => {
    const names = [
      'Event',
      'EventTarget',
      'CustomEvent',
      'AbortController',
      'AbortSignal',
      'Performance',
      'performance',
    ];
    const result = await run<{ before: string[]; after: boolean[]; tags: string[] }>(`
      const names = ${JSON.stringify(names)};
      const before = names.map((name) => typeof Object.getOwnPropertyDescriptor(globalThis, name).get);
      const tags = [new Event('x'), new EventTarget(), new CustomEvent('x'), new AbortController(),
        new AbortController().signal, performance]
        .map((value) => Object.prototype.toString.call(value));
      const after = names.map((name) => {
        void globalThis[name];
        const d = Object.getOwnPropertyDescriptor(globalThis, name);
        return d.writable && d.configurable && !d.enumerable && d.value !== undefined;
      });
      return { before, after, tags };`);
    expect(result.before).toEqual(names.map(() => 'function'));
    expect(result.after).toEqual(names.map(() => true));
    expect(result.tags).toEqual([
      '[object Event]',
      '[object EventTarget]',
      '[object CustomEvent]',
      '[object AbortController]',
      '[object AbortSignal]',
      '[object Performance]',
    ]);
  });

  it('keep a global a guest assigned before the first use', async () => {
    expect(await harness.evaluate(`globalThis.AbortController = 'mine'; AbortController`)).toBe('mine');
    expect(await harness.evaluate(`typeof AbortSignal.timeout`)).toBe('function');
  });

  it('give streams our AbortSignal (WritableStreamDefaultController#signal)', async () => {
    const result = await run(`
      let signal;
      new WritableStream({ start(controller) { signal = controller.signal; } });
      return [signal instanceof AbortSignal, signal.aborted];`);
    expect(result).toEqual([true, false]);
  });
});

describe('Event and CustomEvent', () => {
  it('take their init dictionary in Web IDL order and expose the DOM flags', async () => {
    const result = await run(`
      const read = [];
      const init = { get cancelable() { read.push('cancelable'); return true; }, get bubbles() { read.push('bubbles');
        return true; },
        get composed() { read.push('composed'); return false; }, get detail() { read.push('detail'); return { n: 1 };
          } };
      const event = new CustomEvent('ping', init);
      event.preventDefault();
      return { read, type: event.type, bubbles: event.bubbles, cancelable: event.cancelable, detail: event.detail,
        prevented: event.defaultPrevented,
        returnValue: event.returnValue, phase: event.eventPhase, trusted: event.isTrusted, target: event.target,
          stamp: typeof event.timeStamp,
        constants: [Event.NONE, Event.AT_TARGET, event.BUBBLING_PHASE] };`);
    expect(result).toEqual({
      read: ['bubbles', 'cancelable', 'composed', 'detail'],
      type: 'ping',
      bubbles: true,
      cancelable: true,
      detail: { n: 1 },
      prevented: true,
      returnValue: false,
      phase: 0,
      trusted: false,
      target: null,
      stamp: 'number',
      constants: [0, 2, 3],
    });
  });

  it('refuse a missing type, a call without new and a non-object init, as TypeErrors', async () => {
    const result = await run(`
      const attempt = (fn) => { try { fn(); return 'no error'; } catch (e) { return e.constructor === TypeError; } };
      return [attempt(() => new Event()), attempt(() => Event('x')), attempt(() => new Event('x', 5)),
        attempt(() => new Event(Symbol('s'))),
        attempt(() => Event.prototype.type)];`);
    expect(result).toEqual([true, true, true, true, true]);
  });
});

describe('EventTarget', () => {
  it(
    'runs capture listeners first, once listeners once, handleEvent objects, and stops on ' +
      'stopImmediatePropagation',
    async () => {
      const result = await run(`
      const target = new EventTarget();
      const calls = [];
      target.addEventListener('x', () => calls.push('bubble'));
      target.addEventListener('x', () => calls.push('capture'), { capture: true });
      target.addEventListener('x', { handleEvent(e) {
        calls.push('object:' + (this !== target) + ':' + (e.currentTarget === target)); } });
      target.addEventListener('x', () => calls.push('once'), { once: true });
      const first = target.dispatchEvent(new Event('x'));
      target.addEventListener('x', (e) => { calls.push('stop'); e.stopImmediatePropagation(); }, true);
      target.dispatchEvent(new Event('x'));
      return { first, calls };`);
      expect(result).toEqual({
        first: true,
        calls: ['capture', 'bubble', 'object:true:true', 'once', 'capture', 'stop'],
      });
    },
  );

  it(
    'ignores duplicate listeners, removes by type, callback and ' + 'capture, and honours passive and preventDefault',
    async () => {
      const result = await run(`
      const target = new EventTarget();
      let count = 0;
      const listener = () => count++;
      target.addEventListener('x', listener);
      target.addEventListener('x', listener);
      target.addEventListener('x', listener, true);
      target.removeEventListener('x', listener, true);
      target.dispatchEvent(new Event('x'));
      target.removeEventListener('x', listener);
      target.dispatchEvent(new Event('x'));
      target.addEventListener('c', (e) => e.preventDefault(), { passive: true });
      const passive = target.dispatchEvent(new Event('c', { cancelable: true }));
      target.addEventListener('c', (e) => e.preventDefault());
      const canceled = target.dispatchEvent(new Event('c', { cancelable: true }));
      return { count, passive, canceled };`);
      expect(result).toEqual({ count: 1, passive: true, canceled: false });
    },
  );

  it('removes a listener when its signal aborts, and never adds one whose signal is aborted', async () => {
    const result = await run(`
      const target = new EventTarget();
      const controller = new AbortController();
      let count = 0;
      target.addEventListener('x', () => count++, { signal: controller.signal });
      target.dispatchEvent(new Event('x'));
      controller.abort();
      target.dispatchEvent(new Event('x'));
      target.addEventListener('x', () => count += 10, { signal: AbortSignal.abort() });
      target.dispatchEvent(new Event('x'));
      let refused;
      try { target.addEventListener('x', () => {}, { signal: {} }); } catch (e) { refused = e.constructor === TypeError;
        }
      return { count, refused };`);
    expect(result).toEqual({ count: 1, refused: true });
  });

  it('reports a throwing listener to the console and runs the next one', async () => {
    const result = await run(`
      const target = new EventTarget();
      const calls = [];
      target.addEventListener('x', () => { throw new Error('listener boom'); });
      target.addEventListener('x', () => calls.push('next'));
      return [target.dispatchEvent(new Event('x')), calls];`);
    expect(result).toEqual([true, ['next']]);
    expect(harness.logs.some((line) => line.level === 'error' && line.text.includes('listener boom'))).toBe(true);
  });

  it(
    'refuses to dispatch an event that is being dispatched ' + '(InvalidStateError) or something not an Event',
    async () => {
      const result = await run(`
      const target = new EventTarget();
      const event = new Event('x');
      let nested;
      target.addEventListener('x', () => { try { target.dispatchEvent(event); } catch (e) {
        nested = [e instanceof DOMException, e.name]; } });
      target.dispatchEvent(event);
      let plain;
      try { target.dispatchEvent({ type: 'x' }); } catch (e) { plain = e.constructor === TypeError; }
      return { nested, plain };`);
      expect(result).toEqual({ nested: [true, 'InvalidStateError'], plain: true });
    },
  );

  it('can be subclassed', async () => {
    const result = await run(`
      class Emitter extends EventTarget { emit(detail) { return this.dispatchEvent(new CustomEvent('go', { detail }));
        } }
      const emitter = new Emitter();
      let seen;
      emitter.addEventListener('go', (e) => { seen = [e.detail, e.target === emitter]; });
      emitter.emit(42);
      return seen;`);
    expect(result).toEqual([42, true]);
  });
});

describe('AbortController and AbortSignal', () => {
  it('abort once, synchronously, with a trusted abort event, and keep the reason', async () => {
    const result = await run(`
      const controller = new AbortController();
      const { signal } = controller;
      const events = [];
      signal.onabort = (e) => events.push(['handler', e.isTrusted, e.target === signal, e.bubbles]);
      signal.addEventListener('abort', () => events.push(['listener', signal.aborted, signal.reason]));
      controller.abort('because');
      controller.abort('again');
      let thrown;
      try { signal.throwIfAborted(); } catch (e) { thrown = e; }
      return { events, reason: signal.reason, thrown, same: controller.signal === signal };`);
    expect(result).toEqual({
      events: [
        ['handler', true, true, false],
        ['listener', true, 'because'],
      ],
      reason: 'because',
      thrown: 'because',
      same: true,
    });
  });

  it('give an AbortError DOMException when aborted without a reason', async () => {
    const result = await run(`
      const controller = new AbortController();
      controller.abort();
      const fromStatic = AbortSignal.abort();
      return [controller.signal.reason instanceof DOMException, controller.signal.reason.name,
        controller.signal.reason.code, fromStatic.aborted, fromStatic.reason.name];`);
    expect(result).toEqual([true, 'AbortError', 20, true, 'AbortError']);
  });

  it('cannot be constructed by a guest, and check their receivers', async () => {
    const result = await run(`
      const attempt = (fn) => { try { fn(); return 'no error'; } catch (e) { return e.constructor.name; } };
      return [attempt(() => new AbortSignal()), attempt(() => Object.getOwnPropertyDescriptor(AbortSignal.prototype,
        'aborted').get.call({})),
        attempt(() => AbortController.prototype.abort.call(Object.create(AbortController.prototype)))];`);
    expect(result).toEqual(['TypeError', 'TypeError', 'TypeError']);
  });

  it('AbortSignal.timeout aborts with a TimeoutError once the time has passed', async () => {
    const result = await run(`
      const signal = AbortSignal.timeout(20);
      const startedAborted = signal.aborted;
      const reason = await new Promise((resolve) => signal.addEventListener('abort', () => resolve(signal.reason)));
      return [startedAborted, reason instanceof DOMException, reason.name, reason.code];`);
    expect(result).toEqual([false, true, 'TimeoutError', 23]);
  });

  it('AbortSignal.timeout refuses what is not a finite non-negative integer', async () => {
    const result = await run(`
      return [-1, NaN, Infinity, 2 ** 53, 1n].map((ms) => { try { AbortSignal.timeout(ms); return 'accepted';
        } catch (e) { return e.constructor.name; } });`);
    expect(result).toEqual(['TypeError', 'TypeError', 'TypeError', 'TypeError', 'TypeError']);
  });

  it(
    'AbortSignal.any follows its sources, flattening dependent ones, and aborts dependents before their events ' +
      'fire',
    async () => {
      const result = await run(`
      const a = new AbortController();
      const b = new AbortController();
      const first = AbortSignal.any([a.signal, b.signal]);
      const second = AbortSignal.any([first]);
      const order = [];
      a.signal.addEventListener('abort', () => order.push(['source', first.aborted, second.aborted]));
      first.addEventListener('abort', () => order.push(['first', first.reason]));
      second.addEventListener('abort', () => order.push(['second', second.reason]));
      a.abort('a went');
      b.abort('b went');
      const already = AbortSignal.any([new AbortController().signal, AbortSignal.abort('early')]);
      let refused;
      try { AbortSignal.any([a.signal, {}]); } catch (e) { refused = e.constructor.name; }
      return { order, already: [already.aborted, already.reason], refused };`);
      expect(result).toEqual({
        order: [
          ['source', true, true],
          ['first', 'a went'],
          ['second', 'a went'],
        ],
        already: [true, 'early'],
        refused: 'TypeError',
      });
    },
  );

  it('AbortSignal.any follows a timeout', async () => {
    const result = await run(`
      const signal = AbortSignal.any([new AbortController().signal, AbortSignal.timeout(10)]);
      return await new Promise((resolve) => { signal.onabort = () => resolve(signal.reason.name); });`);
    expect(result).toBe('TimeoutError');
  });
});

// structuredClone as guest code sees it in a real isolate (the runtime's structured-clone module,
// loaded on first use): the HTML standard's serializable kinds, cycles, the transfer option, what
// is refused with a DataCloneError, and hostile inputs that must not break the runtime.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Harness } from './harness.ts';

let harness: Harness;
beforeEach(async () => {
  harness = await Harness.create();
});
afterEach(() => harness.dispose());

const run = async <T>(body: string): Promise<T> =>
  JSON.parse(await harness.evaluate<string>(`(async () => JSON.stringify(await (async () => { ${body} })()))()`));

/** The name and message of what structuredClone(<expression>) throws, or 'cloned'. */
const refusal = (expression: string) =>
  run<string>(
    `try { structuredClone(${expression}); return 'cloned'; } catch (e) { return e.constructor.name + '/' + ` +
      `e.name + '/' + e.code; }`,
  );

describe('structuredClone', () => {
  it(
    'copies primitives, wrappers, dates, regular expressions, ' + 'maps, sets and plain objects, as new objects',
    async () => {
      const result = await run(`
      const input = { n: -0, big: 2n ** 70n, s: 'x\\uD800', u: undefined, t: new Boolean(true), num: new Number(3),
        str: new String('w'), date: new Date(1234), re: /a+/gimsuy,
        map: new Map([[{ k: 1 }, new Set(['v'])]]), nested: { arr: [1, , 'three'] } };
      input.re.lastIndex = 3;
      const copy = structuredClone(input);
      const [[key, set]] = copy.map;
      return {
        distinct: copy !== input && copy.map !== input.map && copy.nested !== input.nested,
        negativeZero: Object.is(copy.n, -0), big: String(copy.big), s: copy.s === input.s,
        u: 'u' in copy && copy.u === undefined,
        wrappers: [typeof copy.t, copy.t.valueOf(), copy.num.valueOf(), copy.str.valueOf()],
        date: [copy.date instanceof Date, copy.date.getTime()], re: [String(copy.re), copy.re.lastIndex],
        map: [key.k, set instanceof Set, set.has('v')],
        sparse: [1 in copy.nested.arr, copy.nested.arr.length, copy.nested.arr[2]],
        prototypes: Object.getPrototypeOf(copy) === Object.prototype,
      };`);
      expect(result).toEqual({
        distinct: true,
        negativeZero: true,
        big: String(2n ** 70n),
        s: true,
        u: true,
        wrappers: ['object', true, 3, 'w'],
        date: [true, 1234],
        re: ['/a+/gimsuy', 0],
        map: [1, true, true],
        sparse: [false, 3, 'three'],
        prototypes: true,
      });
    },
  );

  it('keeps cycles and shared references, and shared buffers of views', async () => {
    const result = await run(`
      const shared = { id: 'shared' };
      const buffer = new ArrayBuffer(8);
      const input = { a: shared, b: shared, list: [], u8: new Uint8Array(buffer, 2, 4), dv: new DataView(buffer),
        f64: new Float64Array([1.5]) };
      input.list.push(input);
      new Uint8Array(buffer)[2] = 7;
      const copy = structuredClone(input);
      return [copy.a === copy.b, copy.list[0] === copy, copy.u8.buffer === copy.dv.buffer, copy.u8.buffer !== buffer,
        copy.u8.byteOffset, copy.u8.length, copy.u8[0], copy.dv.getUint8(2), copy.f64 instanceof Float64Array,
          copy.f64[0]];`);
    expect(result).toEqual([true, true, true, true, 2, 4, 7, 7, true, 1.5]);
  });

  it('copies errors with their type, message, cause and stack, and unknown error types as Error', async () => {
    const result = await run(`
      class MyError extends RangeError { constructor() { super('mine'); this.name = 'MyError'; } }
      const error = new TypeError('bad', { cause: { why: 'because' } });
      error.extra = 'dropped';
      const copy = structuredClone(error);
      const custom = structuredClone(new MyError());
      const cyclic = new Error('loop');
      cyclic.cause = cyclic;
      const loop = structuredClone(cyclic);
      return [copy instanceof TypeError, copy.message, copy.cause.why, 'extra' in copy, copy.stack === error.stack,
        Object.getOwnPropertyDescriptor(copy, 'cause').enumerable, custom.constructor.name, custom.message,
          loop.cause === loop,
        structuredClone(new DOMException('gone', 'AbortError')).name];`);
    expect(result).toEqual([true, 'bad', 'because', false, true, false, 'Error', 'mine', true, 'AbortError']);
  });

  it('copies Blob and File with their bytes, type, name and lastModified (a subclass as File)', async () => {
    const result = await run(`
      class Upload extends File {}
      const blob = structuredClone(new Blob(['hi'], { type: 'text/plain' }));
      const file = structuredClone(new Upload([new Uint8Array([1, 2])], 'a.bin', { type: 'application/x-a',
        lastModified: 42 }));
      return [blob instanceof Blob, blob instanceof File, blob.type, await blob.text(),
        Object.getPrototypeOf(file) === File.prototype, file.name, file.type, file.lastModified,
          [...new Uint8Array(await file.arrayBuffer())]];`);
    expect(result).toEqual([true, false, 'text/plain', 'hi', true, 'a.bin', 'application/x-a', 42, [1, 2]]);
  });

  it('copies own enumerable string keys only, by value, and a __proto__ key as an own property', async () => {
    const result = await run(`
      const input = Object.create({ inherited: 1 });
      Object.defineProperty(input, '__proto__', { value: { polluted: true }, writable: true, enumerable: true,
        configurable: true });
      input.plain = 1;
      Object.defineProperty(input, 'hidden', { value: 1, enumerable: false });
      input[Symbol('s')] = 1;
      let reads = 0;
      Object.defineProperty(input, 'getter', { get() { reads++; return 'got'; }, enumerable: true });
      const copy = structuredClone(input);
      return [Object.keys(copy), 'polluted' in copy, copy.__proto__.polluted,
        Object.getPrototypeOf(copy) === Object.prototype, copy.getter, reads,
        Object.getOwnPropertyDescriptor(copy, 'getter').value];`);
    expect(result).toEqual([['__proto__', 'plain', 'getter'], false, true, true, 'got', 1, 'got']);
  });

  it('transfers ArrayBuffers: the original is detached only once the clone succeeded', async () => {
    const result = await run(`
      const buffer = new Uint8Array([5, 6, 7]).buffer;
      const copy = structuredClone({ buffer, view: new Uint8Array(buffer, 1) }, { transfer: [buffer] });
      const kept = new ArrayBuffer(4);
      let failed;
      try { structuredClone({ kept, bad: () => 1 }, { transfer: [kept] }); } catch (e) { failed = e.name; }
      const resizable = new ArrayBuffer(2, { maxByteLength: 8 });
      const moved = structuredClone(resizable, { transfer: [resizable] });
      return [buffer.detached, copy.buffer.byteLength, copy.view[0], copy.view.buffer === copy.buffer, failed,
        kept.detached,
        resizable.detached, moved.resizable, moved.maxByteLength];`);
    expect(result).toEqual([true, 3, 6, true, 'DataCloneError', false, true, true, 8]);
  });

  it(
    'refuses bad transfer lists: a detached or duplicate buffer or a non-transferable object, and a non-object ' +
      'options',
    async () => {
      const result = await run(`
      const attempt = (fn) => { try { fn(); return 'cloned'; } catch (e) { return e.constructor.name + '/' + e.name;
        } };
      const detached = new ArrayBuffer(1);
      structuredClone(detached, { transfer: [detached] });
      const buffer = new ArrayBuffer(1);
      return [attempt(() => structuredClone(detached, { transfer: [detached] })), attempt(() => structuredClone(1, {
        transfer: [buffer, buffer] })),
        attempt(() => structuredClone(new Blob([]), { transfer: [new Blob([])] })), attempt(() => structuredClone(1, {
          transfer: [1] })),
        attempt(() => structuredClone(1, 'options')), attempt(() => structuredClone()), buffer.detached];`);
      expect(result).toEqual([
        'DOMException/DataCloneError',
        'DOMException/DataCloneError',
        'DOMException/DataCloneError',
        'TypeError/TypeError',
        'TypeError/TypeError',
        'TypeError/TypeError',
        false,
      ]);
    },
  );

  it.each([
    ['a function', '() => 1'],
    ['a symbol', "Symbol('s')"],
    ['a symbol inside an object', "{ deep: [Symbol('s')] }"],
    ['a WeakMap', 'new WeakMap()'],
    ['a WeakSet', 'new WeakSet()'],
    ['a WeakRef', 'new WeakRef({})'],
    ['a Promise', 'Promise.resolve()'],
    ['a generator', '(function* () {})()'],
    ['a Map iterator', 'new Map().entries()'],
    ['an Intl object', 'new Intl.NumberFormat()'],
    ['a Response', "new Response('x')"],
    ['a Request', "new Request('https://example.com/')"],
    ['Headers', 'new Headers()'],
    ['a URL', "new URL('https://example.com/')"],
    ['an AbortSignal', 'AbortSignal.abort()'],
    ['an EventTarget subclass', 'new (class extends EventTarget {})()'],
    ['performance', 'performance'],
    ['crypto', 'crypto'],
    ['the global object', 'globalThis'],
    [
      'a detached ArrayBuffer',
      '(() => { const b = new ArrayBuffer(1); structuredClone(b, { transfer: [b] }); return b; })()',
    ],
  ])('refuses %s with a DataCloneError DOMException', async (_what, expression) => {
    expect(await refusal(expression)).toBe('DOMException/DataCloneError/25');
  });

  it(
    'uses the realm intrinsics captured before guest code, not ' + 'globals a guest replaced before its first call',
    async () => {
      const result = await run(`
      const map = new Map([[1, 2]]);
      const date = new Date(5);
      globalThis.Map = class FakeMap {};
      globalThis.Date = class FakeDate {};
      globalThis.DOMException = class FakeException {};
      const copy = structuredClone({ map, date });
      let error;
      try { structuredClone(() => 1); } catch (e) { error = [e.name, e instanceof globalThis.DOMException,
        e.constructor.name]; }
      return [Object.getPrototypeOf(copy.map) === Object.getPrototypeOf(map), copy.map.get(1),
        Object.getPrototypeOf(copy.date) === Object.getPrototypeOf(date), error];`);
      expect(result).toEqual([true, 2, true, ['DataCloneError', false, 'DOMException']]);
    },
  );

  it('survives hostile inputs: throwing getters, huge sparse arrays, proxies and deep nesting', async () => {
    const result = await run(`
      const attempt = (fn) => { try { const v = fn(); return typeof v; } catch (e) {
        return e.constructor.name + ':' + e.message; } };
      const deep = [];
      let cursor = deep;
      for (let i = 0; i < 200000; i++) { const next = []; cursor.push(next); cursor = next; }
      return [
        attempt(() => structuredClone({ get boom() { throw new Error('getter'); } })),
        attempt(() => structuredClone(new Array(2 ** 32 - 1)).length),
        attempt(() => structuredClone(new Proxy({ a: 1 }, { get: (t, k) => (k === 'a' ? 'trapped' : t[k]) })).a),
        attempt(() => structuredClone(deep)).split(':')[0],
        attempt(() => structuredClone({ fine: true }).fine),
      ];`);
    expect(result).toEqual(['Error:getter', 'number', 'string', 'RangeError', 'boolean']);
  });
});

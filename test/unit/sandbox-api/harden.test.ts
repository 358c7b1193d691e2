// The realm a guest runs in after install(): built-ins and runtime globals are frozen (so nothing a
// dispatch does to them survives into the next), ordinary code that assigns on instances still
// works (the override mistake is fixed), and eval / new Function still run inside the isolate.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness } from './harness.ts';

let harness: Harness;
beforeAll(async () => {
  harness = await Harness.create();
});
afterAll(() => harness.dispose());

const run = <T>(body: string): Promise<T> => harness.evaluate<T>(`(() => { "use strict"; ${body} })()`);
const outcome = (statement: string): Promise<string> =>
  run<string>(`try { ${statement}; return 'ok'; } catch (error) { return error.name + ': ' + error.message; }`);

describe('frozen realm', () => {
  it.each([
    'Object',
    'Object.prototype',
    'Function',
    'Function.prototype',
    'Array',
    'Array.prototype',
    'String.prototype',
    'Number.prototype',
    'Boolean.prototype',
    'Symbol',
    'Symbol.prototype',
    'BigInt.prototype',
    'Promise',
    'Promise.prototype',
    'RegExp.prototype',
    'Date.prototype',
    'Map.prototype',
    'Set.prototype',
    'WeakMap.prototype',
    'WeakSet.prototype',
    'Error.prototype',
    'TypeError',
    'TypeError.prototype',
    'RangeError.prototype',
    'AggregateError.prototype',
    'ArrayBuffer',
    'ArrayBuffer.prototype',
    'SharedArrayBuffer',
    'SharedArrayBuffer.prototype',
    'DataView.prototype',
    'Uint8Array',
    'Uint8Array.prototype',
    'Object.getPrototypeOf(Uint8Array)',
    'Object.getPrototypeOf(Uint8Array.prototype)',
    'JSON',
    'Math',
    'Reflect',
    'Proxy',
    'Intl',
    'Intl.DateTimeFormat.prototype',
    'Iterator.prototype',
    'Object.getPrototypeOf([][Symbol.iterator]())',
    'Object.getPrototypeOf(new Map().entries())',
    'Object.getPrototypeOf(function* () {})',
    'Object.getPrototypeOf(function* () {}).prototype',
    'Object.getPrototypeOf(async function () {})',
    'Object.getPrototypeOf(async function* () {}).prototype',
    'eval',
    'parseInt',
    'Request',
    'Request.prototype',
    'Response',
    'Response.prototype',
    'Headers.prototype',
    'URL',
    'URL.prototype',
    'URLSearchParams.prototype',
    'TextEncoder.prototype',
    'TextDecoder.prototype',
    'crypto',
    'crypto.subtle',
    'DOMException.prototype',
    'fetch',
    'setTimeout',
  ])('freezes %s', async (expression) => {
    expect(await run<boolean>(`return Object.isFrozen(${expression});`)).toBe(true);
  });

  it('keeps Error itself closed to new properties but its two V8 hooks writable', async () => {
    expect(await run<boolean>('return Object.isExtensible(Error);')).toBe(false);
    expect(await outcome('Error.stackTraceLimit = 50; Error.stackTraceLimit = 10')).toBe('ok');
    expect(await outcome('Error.prepareStackTrace = undefined')).toBe('ok');
    expect(await outcome('Error.captureStackTrace = null')).toMatch(/^TypeError/);
  });

  it.each([
    ['Object.prototype.polluted = true', /^TypeError/],
    ['Object.prototype.toString = () => "owned"', /^TypeError: Cannot assign to toString/],
    ['Array.prototype.push = () => 0', /^TypeError/],
    ['JSON.parse = () => ({})', /^TypeError/],
    ['Promise.prototype.then = () => {}', /^TypeError/],
    ['Response.prototype.json = () => ({})', /^TypeError/],
    ['Object.defineProperty(Object.prototype, "isAdmin", { value: true })', /^TypeError/],
    ['Object.setPrototypeOf(Object.prototype, {})', /^TypeError/],
    ['delete Array.prototype.map', /^TypeError/],
    [
      'const merge = (t, s) => { for (const k in s) typeof s[k] === "object" ? merge(t[k] ??= {}, s[k]) : (t[k] = ' +
        's[k]); return t; }; merge({}, JSON.parse(\'{"__proto__":{"isAdmin":true}}\'))',
      /^TypeError/,
    ],
  ])('refuses %s', async (statement, expected) => {
    expect(await outcome(statement)).toMatch(expected);
    expect(await run<unknown>('return ({}).polluted ?? ({}).isAdmin ?? null;')).toBeNull();
  });

  it('leaves globalThis and console to the guest', async () => {
    expect(await outcome('globalThis.mine = 1; console.debug = () => {}')).toBe('ok');
  });
});

describe('ordinary code on a frozen realm', () => {
  it('subclasses Error and names instances by assignment', async () => {
    expect(
      await run<string>(
        'class MyError extends TypeError { constructor(m) { super(m); this.name = "MyError"; } } const e = new ' +
          'MyError("x"); return `${e.name}|${String(e)}|${e instanceof TypeError}`;',
      ),
    ).toBe('MyError|MyError: x|true');
  });

  it('overrides inherited methods on instances and ES5 prototypes', async () => {
    expect(
      await run<string>(`
        const o = {}; o.toString = () => 'own';
        function Legacy() {} Legacy.prototype = Object.create(Error.prototype); Legacy.prototype.constructor = Legacy;
          Legacy.prototype.name = 'Legacy';
        const bytes = new Uint8Array(2); bytes.toString = () => 'bytes';
        function Buf() {} Object.setPrototypeOf(Buf.prototype, Uint8Array.prototype);
          Buf.prototype.slice = function () { return 'sliced'; };
        return [String(o), new Legacy().name, new Legacy().constructor === Legacy, String(bytes),
          Buf.prototype.slice()].join(',');`),
    ).toBe('own,Legacy,true,bytes,sliced');
  });

  it('still generates code from strings inside the isolate', async () => {
    expect(await run<number>('return eval("1 + 1") + new Function("a", "return a * 10")(2);')).toBe(22);
  });

  it('has SharedArrayBuffer, but no Atomics or WebAssembly to reach', async () => {
    expect(await run<string>('return [typeof SharedArrayBuffer, typeof Atomics, typeof WebAssembly].join();')).toBe(
      'function,undefined,undefined',
    );
  });
});

// Console formatting (runtime): util.format-like specifiers, one-line inspection, 8 KiB cap, and
// a console that never throws but for a label that cannot be converted.
import { describe, expect, it } from 'vitest';
import { format } from 'node:util';
import { createConsole } from '../../../sandbox-api/runtime/console.ts';
import { capLine, formatError, formatLogArgs, inspect } from '../../../sandbox-api/runtime/console-format.ts';

describe('formatLogArgs', () => {
  it('handles %-specifiers like util.format for primitives', () => {
    const cases: unknown[][] = [
      ['%s is %d years', 'Ada', 36],
      ['%i / %f', '42.9px', '3.5e1'],
      ['%d %d', 10n, Symbol('s')],
      ['100%% sure %s', 'yes'],
      ['%j', { a: [1, 'x'] }],
      ['missing %s %s', 'one'],
      ['%c styled', 'color: red'],
      ['extra', 1, 'two', true, null, undefined],
      ['%s', -0],
      ['%o and %x', 1],
      [''],
      ['just a string'],
    ];
    for (const args of cases)
      expect(
        formatLogArgs(args),
        JSON.stringify(args, (_, v) => (typeof v === 'bigint' || typeof v === 'symbol' ? String(v) : v)),
      ).toBe(format(...args));
  });

  it('prints [Circular] for %j of a cyclic object', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(formatLogArgs(['%j', cyclic])).toBe('[Circular]');
  });

  it('never throws, even for hostile values', () => {
    const hostile = new Proxy(
      {},
      {
        ownKeys: () => {
          throw new Error('trap');
        },
        getPrototypeOf: () => {
          throw new Error('trap');
        },
      },
    );
    const throwingToString = {
      toString: () => {
        throw new Error('nope');
      },
    };
    const getter = Object.defineProperty({}, 'secret', {
      get: () => {
        throw new Error('getter');
      },
      enumerable: true,
    });
    expect(() => formatLogArgs([hostile, throwingToString, getter, '%d', throwingToString])).not.toThrow();
    expect(formatLogArgs([getter])).toBe('{ secret: [Getter] }');
    expect(formatLogArgs(['%s', throwingToString])).toContain('toString');
  });
});

describe('inspect', () => {
  it('renders values on one line, roughly like util.inspect', () => {
    class Point {
      x = 1;
      y = 2;
    }
    const cases: [unknown, string][] = [
      [{ a: 1, 'b-c': 'two', [Symbol('k')]: true }, "{ a: 1, 'b-c': 'two', [Symbol(k)]: true }"],
      [[1, [2, [3]]], '[ 1, [ 2, [ 3 ] ] ]'],
      [new Point(), 'Point { x: 1, y: 2 }'],
      [Object.create(null), '[Object: null prototype] {}'],
      [new Map([['k', { v: 1 }]]), "Map(1) { 'k' => { v: 1 } }"],
      [new Set([1, 'a']), "Set(2) { 1, 'a' }"],
      [new Uint8Array([1, 2]), 'Uint8Array(2) [ 1, 2 ]'],
      [new ArrayBuffer(4), 'ArrayBuffer { byteLength: 4 }'],
      [new Date(0), '1970-01-01T00:00:00.000Z'],
      [/x+/g, '/x+/g'],
      [function named() {}, '[Function: named]'],
      [() => {}, '[Function (anonymous)]'],
      [class Thing {}, '[class Thing]'],
      ["it's\n", "'it\\'s\\n'"],
      [[], '[]'],
      [{}, '{}'],
    ];
    for (const [value, expected] of cases) expect(inspect(value)).toBe(expected);
  });

  it('marks cycles and stops at depth 4', () => {
    const cyclic: Record<string, unknown> = { name: 'root' };
    cyclic.self = cyclic;
    expect(inspect(cyclic)).toBe("{ name: 'root', self: [Circular] }");
    expect(inspect({ a: { b: { c: { d: { e: { f: 1 } } } } } })).toBe('{ a: { b: { c: { d: { e: [Object] } } } } }');
    expect(inspect(Array.from({ length: 102 }, (_, i) => i))).toMatch(/98, 99, \.\.\. 2 more items \]$/);
  });

  it('prints errors as name: message plus stack frames', () => {
    const error = new RangeError('out of range');
    expect(formatError(error)).toMatch(/^RangeError: out of range\n\s+at /);
    expect(inspect({ error })).toBe('{ error: [RangeError: out of range] }');
    expect(formatError('plain')).toBe("'plain'");
  });
});

describe('capLine', () => {
  it('keeps short lines and cuts long ones to 8 KiB with a marker, never splitting a character', () => {
    expect(capLine('short')).toBe('short');
    const long = '😀'.repeat(5000);
    const capped = capLine(long);
    expect(new TextEncoder().encode(capped).length).toBeLessThanOrEqual(8192);
    expect(capped).toMatch(/^(😀)+… \[truncated \d+ bytes\]$/);
  });
});

describe('createConsole', () => {
  it('sends each call as one line with its level', () => {
    const lines: [string, string][] = [];
    const console = createConsole((level, text) => lines.push([level, text]));
    console.log('a', 1);
    console.info('b');
    console.warn('c');
    console.error('d');
    console.debug('e');
    console.dir({ f: 1 });
    console.trace('g');
    console.assert(false, 'h');
    console.assert(true, 'never');
    console.count();
    console.count();
    console.group('grouped');
    console.log('inside');
    console.groupEnd();
    console.timeEnd('missing');
    expect(lines.slice(0, 6)).toEqual([
      ['log', 'a 1'],
      ['info', 'b'],
      ['warn', 'c'],
      ['error', 'd'],
      ['debug', 'e'],
      ['log', '{ f: 1 }'],
    ]);
    expect(lines[6][1]).toMatch(/^Trace: g\n\s+at /);
    expect(lines.slice(7)).toEqual([
      ['error', 'Assertion failed: h'],
      ['log', 'default: 1'],
      ['log', 'default: 2'],
      ['log', 'grouped'],
      ['log', '  inside'],
      ['warn', "No such label 'missing' for console.timeEnd()"],
    ]);
  });

  it('never throws when the sink does', () => {
    const console = createConsole(() => {
      throw new Error('sink down');
    });
    expect(() => console.log('x')).not.toThrow();
  });

  it('rethrows what converting a label throws, as the standard says, and logs nothing for it', () => {
    const lines: string[] = [];
    const console = createConsole((_level, text) => lines.push(text));
    const label = {
      toString() {
        throw new Error('conversion error');
      },
    };
    for (const method of ['count', 'countReset', 'time', 'timeLog', 'timeEnd'] as const) {
      expect(() => console[method](label), method).toThrow('conversion error');
    }
    expect(() => console.count(Symbol('label'))).toThrow(TypeError);
    console.count({ toString: () => 'converted' });
    expect(lines).toEqual(['converted: 1']);
  });

  it('is a namespace object: tagged "console", over an empty frozen prototype', () => {
    const console = createConsole(() => {});
    const prototype = Object.getPrototypeOf(console);
    expect(Object.getOwnPropertyNames(prototype)).toEqual([]);
    expect(Object.isFrozen(prototype)).toBe(true);
    expect(Object.getPrototypeOf(prototype)).toBe(Object.prototype);
    expect(Object.prototype.toString.call(console)).toBe('[object console]');
    expect(Object.getOwnPropertyDescriptor(console, Symbol.toStringTag)).toEqual({
      value: 'console',
      writable: false,
      enumerable: false,
      configurable: true,
    });
    expect(Object.getOwnPropertyDescriptor(console, 'log')).toMatchObject({
      writable: true,
      enumerable: true,
      configurable: true,
    });
    expect(Object.entries(console).filter(([name, method]) => method.name !== name)).toEqual([]);
  });
});

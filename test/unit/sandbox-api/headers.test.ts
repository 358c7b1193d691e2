// Headers (runtime) against Node's (undici's) Headers as the oracle.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  Headers as RuntimeHeaders,
  MAX_CROSSING_HEADER_BYTES,
  crossingHeaderPairs,
  setHeadersGuard,
} from '../../../sandbox-api/runtime/headers.ts';

const name = fc.constantFrom(
  'Content-Type',
  'content-type',
  'X-A',
  'x-a',
  'Set-Cookie',
  'set-cookie',
  'Accept',
  'bad name',
  'ümlaut',
  '',
);
const value = fc.constantFrom(
  'text/plain',
  ' padded\t',
  'a, b',
  '',
  'v\u00ff',
  'bad\nvalue',
  'snow\u2603',
  'c=1; Path=/',
);
const op = fc.tuple(fc.constantFrom('append', 'set', 'delete', 'get', 'has'), name, value);

function replay(headers: RuntimeHeaders | Headers, ops: [string, string, string][]): unknown[] {
  const out: unknown[] = [];
  for (const [method, key, val] of ops) {
    try {
      const target = headers as unknown as Record<string, (...args: string[]) => unknown>;
      out.push(method === 'append' || method === 'set' ? target[method](key, val) : target[method](key));
    } catch (error) {
      out.push((error as Error).name);
    }
  }
  out.push([...headers], headers.getSetCookie());
  return out;
}

describe('Headers (runtime)', () => {
  it('behaves like Node for any sequence of operations', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 12 }), (ops) => {
        expect(replay(new RuntimeHeaders(), ops)).toEqual(replay(new Headers(), ops));
      }),
      { numRuns: 3000 },
    );
  });

  it('is case-insensitive, combines values with ", " and iterates sorted, set-cookie apart', () => {
    const headers = new RuntimeHeaders([
      ['X-B', '1'],
      ['x-a', '2'],
      ['X-B', '3'],
      ['Set-Cookie', 'a=1'],
      ['set-cookie', 'b=2'],
    ]);
    expect(headers.get('x-b')).toBe('1, 3');
    expect([...headers]).toEqual([
      ['set-cookie', 'a=1'],
      ['set-cookie', 'b=2'],
      ['x-a', '2'],
      ['x-b', '1, 3'],
    ]);
    expect(headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(crossingHeaderPairs(headers, 'the response')).toEqual([...headers]);
  });

  it('refuses to let headers leave the isolate once names and values pass 64 KiB in total', () => {
    const value = 'v'.repeat(1024);
    const atCap = new RuntimeHeaders();
    // 63 headers of 1,024 + 5 bytes stay under the cap; one more of the same size passes it.
    for (let i = 0; i < 63; i++) atCap.append(`x-${String(i).padStart(2, '0')}`, value);
    expect(crossingHeaderPairs(atCap, 'the response')).toHaveLength(63);
    atCap.append('x-64', value);
    expect(() => crossingHeaderPairs(atCap, 'the response')).toThrow(
      `the response headers add up to more than ${MAX_CROSSING_HEADER_BYTES} bytes`,
    );
    // One large value referenced by many headers counts once per header: what a copy would cost.
    const amplified = new RuntimeHeaders();
    const large = 'x'.repeat(40 * 1024);
    amplified.append('a', large);
    amplified.append('b', large);
    expect(() => crossingHeaderPairs(amplified, 'fetch: the request')).toThrow(TypeError);
  });

  it('accepts a record, pairs or another Headers, and rejects malformed pairs', () => {
    expect([...new RuntimeHeaders({ A: '1' })]).toEqual([['a', '1']]);
    expect([...new RuntimeHeaders(new RuntimeHeaders({ b: '2' }))]).toEqual([['b', '2']]);
    expect(() => new RuntimeHeaders([['a', 'b', 'c']] as never)).toThrow(TypeError);
  });

  it('refuses changes once guarded immutable', () => {
    const headers = new RuntimeHeaders({ a: '1' });
    setHeadersGuard(headers, 'immutable');
    expect(() => headers.set('a', '2')).toThrow(TypeError);
    expect(() => headers.append('b', '2')).toThrow(TypeError);
    expect(() => headers.delete('a')).toThrow(TypeError);
    expect(headers.get('a')).toBe('1');
  });

  it('throws for null, symbol keys and characters above U+00FF, as WebIDL converts the init', () => {
    expect(() => new RuntimeHeaders(null as never)).toThrow(TypeError);
    expect(() => new RuntimeHeaders({ [Symbol.toStringTag]: 'x' } as never)).toThrow(TypeError);
    expect(() => new RuntimeHeaders({ a: '\u0100' })).toThrow(TypeError);
    expect(() => new RuntimeHeaders([['a', 'b']]).append('c', Symbol('v') as never)).toThrow(TypeError);
    expect(() => (new RuntimeHeaders().append as (name: string) => void)('a')).toThrow('2 arguments required');
    // Non-enumerable symbol keys are skipped without being converted.
    const record = Object.defineProperty({ a: '1' }, Symbol.iterator, { value: undefined, enumerable: false });
    expect([...new RuntimeHeaders(record as never)]).toEqual([['a', '1']]);
  });

  it('reads a record key by key: descriptor, key conversion, then the value', () => {
    const log: string[] = [];
    const target = { a: 'b', '\uFFFF': 'd' };
    const proxy = new Proxy(target, {
      get: (object, key, receiver) => (log.push(`get ${String(key)}`), Reflect.get(object, key, receiver)),
      ownKeys: (object) => (log.push('ownKeys'), Reflect.ownKeys(object)),
      getOwnPropertyDescriptor: (object, key) => (
        log.push(`describe ${String(key)}`), Reflect.getOwnPropertyDescriptor(object, key)
      ),
    });
    expect(() => new RuntimeHeaders(proxy)).toThrow(TypeError);
    // The invalid key throws before its value is read.
    expect(log).toEqual(['get Symbol(Symbol.iterator)', 'ownKeys', 'describe a', 'get a', 'describe \uFFFF']);
  });

  it('iterates live: deletions and additions during iteration show at the next step', () => {
    const headers = new RuntimeHeaders({ foo: '2', baz: '1', BAR: '0', quux: '3' });
    const seen: string[] = [];
    for (const [name] of headers) {
      seen.push(name);
      if (name === 'bar') headers.delete('foo');
      if (name === 'baz') headers.append('x-yz', '4');
    }
    expect(seen).toEqual(['bar', 'baz', 'quux', 'x-yz']);
    const forEachSeen: string[] = [];
    headers.forEach((_value, name) => {
      forEachSeen.push(name);
      if (name === 'bar') headers.append('abc', '-1');
    });
    expect(forEachSeen).toEqual(['bar', 'bar', 'baz', 'quux', 'x-yz']);
  });

  it('has WebIDL iterators: "Headers Iterator" objects over %IteratorPrototype%, @@iterator being entries', () => {
    const iterator = new RuntimeHeaders({ a: '1' }).keys();
    const prototype = Object.getPrototypeOf(iterator);
    expect(Object.getPrototypeOf(prototype)).toBe(Object.getPrototypeOf(Object.getPrototypeOf([][Symbol.iterator]())));
    expect(Object.prototype.toString.call(iterator)).toBe('[object Headers Iterator]');
    // Frozen like every built-in prototype of the realm: one dispatch cannot change it for the next.
    expect(Object.getOwnPropertyDescriptor(prototype, 'next')).toMatchObject({
      enumerable: true,
      writable: false,
      configurable: false,
    });
    expect(Object.hasOwn(prototype, 'constructor')).toBe(false);
    expect(() => prototype.next.call({})).toThrow(TypeError);
    expect(RuntimeHeaders.prototype[Symbol.iterator]).toBe(RuntimeHeaders.prototype.entries);
    expect([RuntimeHeaders.name, RuntimeHeaders.length]).toEqual(['Headers', 0]);
    expect(Object.isFrozen(prototype)).toBe(true);
  });
});

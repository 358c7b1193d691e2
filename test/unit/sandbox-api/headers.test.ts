// Headers (runtime) against Node's (undici's) Headers as the oracle.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Headers as RuntimeHeaders, MAX_CROSSING_HEADER_BYTES, crossingHeaderPairs, setHeadersGuard } from '../../../sandbox-api/runtime/headers.ts';

const name = fc.constantFrom('Content-Type', 'content-type', 'X-A', 'x-a', 'Set-Cookie', 'set-cookie', 'Accept', 'bad name', 'ümlaut', '');
const value = fc.constantFrom('text/plain', ' padded\t', 'a, b', '', 'v\u00ff', 'bad\nvalue', 'snow\u2603', 'c=1; Path=/');
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
    const headers = new RuntimeHeaders([['X-B', '1'], ['x-a', '2'], ['X-B', '3'], ['Set-Cookie', 'a=1'], ['set-cookie', 'b=2']]);
    expect(headers.get('x-b')).toBe('1, 3');
    expect([...headers]).toEqual([['set-cookie', 'a=1'], ['set-cookie', 'b=2'], ['x-a', '2'], ['x-b', '1, 3']]);
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
    expect(() => crossingHeaderPairs(atCap, 'the response')).toThrow(`the response headers add up to more than ${MAX_CROSSING_HEADER_BYTES} bytes`);
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
});

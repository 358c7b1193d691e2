// URLSearchParams (runtime) against Node's WHATWG implementation as the oracle.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  URLSearchParams as RuntimeParams,
  parseUrlencodedBytes,
} from '../../../sandbox-api/runtime/url-search-params.ts';

const queryChars = fc.constantFrom(
  ...'ab=&+%2F0A zé€?#\u0000\ud800\udc00\ud83d\ude00'.split(''),
  '%',
  '%2',
  '%zz',
  '%C3%A9',
  '%FF',
);
const query = fc.array(queryChars, { maxLength: 20 }).map((parts) => parts.join(''));
const anyText = fc.string({ unit: 'binary', maxLength: 12 });

/**
 * The spec's parser written directly (percent-decode the UTF-8 bytes, then UTF-8 decode). Node's
 * own URLSearchParams is not used as the parsing oracle: it decodes "%FF€" to "\ufffd\ufffd"
 * where the spec (and TextDecoder) give "\ufffd€".
 */
function specParse(input: string): [string, string][] {
  const decode = (text: string): string => {
    const bytes = Buffer.from(text.replace(/\+/g, ' '), 'utf8');
    const out: number[] = [];
    for (let i = 0; i < bytes.length; i++) {
      const hex = bytes.subarray(i + 1, i + 3).toString('latin1');
      if (bytes[i] === 0x25 && /^[0-9a-fA-F]{2}$/.test(hex)) {
        out.push(parseInt(hex, 16));
        i += 2;
      } else out.push(bytes[i]);
    }
    return new TextDecoder('utf-8', { ignoreBOM: true }).decode(Uint8Array.from(out));
  };
  return (input.startsWith('?') ? input.slice(1) : input) // the constructor drops one leading "?"
    .split('&')
    .filter((sequence) => sequence !== '')
    .map((sequence) => {
      const at = sequence.indexOf('=');
      return at < 0 ? [decode(sequence), ''] : [decode(sequence.slice(0, at)), decode(sequence.slice(at + 1))];
    });
}

describe('URLSearchParams (runtime)', () => {
  it('parses every query as the spec says and serializes it like Node', () => {
    fc.assert(
      fc.property(query, (input) => {
        const ours = new RuntimeParams(input);
        expect([...ours]).toEqual(specParse(input));
        expect(ours.toString()).toBe(new URLSearchParams([...ours]).toString());
      }),
      { numRuns: 3000 },
    );
    expect([...new RuntimeParams('%FF€=1')]).toEqual([['\ufffd€', '1']]);
  });

  it('serializes arbitrary names and values (including lone surrogates) like Node', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(anyText, anyText), { maxLength: 5 }), (pairs) => {
        expect(new RuntimeParams(pairs).toString()).toBe(new URLSearchParams(pairs).toString());
      }),
      { numRuns: 2000 },
    );
  });

  it(
    'keeps a leading U+FEFF of a name that also holds a lone surrogate or an astral character (text, not a byte ' +
      'order mark)',
    () => {
      for (const pairs of [[['\ufeff\u{10000}', '']], [['\ufeff\ud800', '\ufeffx\udc00']]] as [string, string][][]) {
        expect(new RuntimeParams(pairs).toString()).toBe(new URLSearchParams(pairs).toString());
      }
      expect(new RuntimeParams([['\ufeff\ud800', '']]).toString()).toBe('%EF%BB%BF%EF%BF%BD=');
    },
  );

  it('accepts a string with "?", a record, a sequence of pairs and another URLSearchParams', () => {
    expect(new RuntimeParams('?a=1&b=2').toString()).toBe('a=1&b=2');
    expect(new RuntimeParams({ a: '1', 'b c': 'd e' }).toString()).toBe('a=1&b+c=d+e');
    expect([
      ...new RuntimeParams([
        ['x', '1'],
        ['x', '2'],
      ]),
    ]).toEqual([
      ['x', '1'],
      ['x', '2'],
    ]);
    const original = new RuntimeParams('k=v');
    const copy = new RuntimeParams(original);
    copy.append('k', 'w');
    expect([original.toString(), copy.toString()]).toEqual(['k=v', 'k=v&k=w']);
    expect(() => new RuntimeParams([['only-one']])).toThrow(TypeError);
  });

  it('implements append, delete, get, getAll, has, set, sort, size and iteration like Node', () => {
    const ours = new RuntimeParams('b=2&a=1&b=3&c=');
    const node = new URLSearchParams('b=2&a=1&b=3&c=');
    const results = (params: RuntimeParams | URLSearchParams) => {
      const seen: unknown[] = [
        params.get('b'),
        params.getAll('b'),
        params.get('zz'),
        params.has('c'),
        params.has('b', '3'),
        params.has('b', '9'),
        params.size,
      ];
      params.append('d', '4');
      params.set('b', 'one');
      params.delete('a', 'nope');
      params.delete('c');
      params.sort();
      const forEach: string[] = [];
      params.forEach((value, name) => forEach.push(`${name}:${value}`));
      seen.push(params.toString(), [...params.keys()], [...params.values()], [...params.entries()], forEach);
      return seen;
    };
    expect(results(ours)).toEqual(results(node));
  });

  it('iterates live, as the spec asks', () => {
    const params = new RuntimeParams('a=1&b=2');
    const names: string[] = [];
    for (const [name] of params) {
      names.push(name);
      if (name === 'a') params.append('c', '3');
    }
    expect(names).toEqual(['a', 'b', 'c']);
  });

  it('converts a record as WebIDL does: keys made USVStrings, a repeated key keeping its first place', () => {
    // Both lone surrogates become U+FFFD: one key, the last value, at the first key's position.
    const params = new RuntimeParams({ '\ud835x': '1', xx: '2', '\ud83dx': '3' });
    expect([...params]).toEqual([
      ['\ufffdx', '3'],
      ['xx', '2'],
    ]);
    expect(() => new RuntimeParams({ [Symbol('k')]: 'v' } as never)).toThrow(TypeError);
    expect(() => new RuntimeParams([['a']] as never)).toThrow(TypeError);
    expect(() => (new RuntimeParams().append as (name: string) => void)('a')).toThrow('2 arguments required');
    expect(() => new RuntimeParams().get(Symbol('k') as never)).toThrow(TypeError);
  });

  it('parses form bodies as bytes, keeping a leading U+FEFF as text', () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...Buffer.from('test=%EF%BB%BF&a+b=c%2')]);
    expect(parseUrlencodedBytes(bytes)).toEqual([
      ['\ufefftest', '\ufeff'],
      ['a b', 'c%2'],
    ]);
  });

  it('has WebIDL iterators named "URLSearchParams Iterator" and the standard class name', () => {
    const iterator = new RuntimeParams('a=1').entries();
    expect(Object.prototype.toString.call(iterator)).toBe('[object URLSearchParams Iterator]');
    expect(Object.getPrototypeOf(Object.getPrototypeOf(iterator))).toBe(
      Object.getPrototypeOf(Object.getPrototypeOf([][Symbol.iterator]())),
    );
    expect(RuntimeParams.prototype[Symbol.iterator]).toBe(RuntimeParams.prototype.entries);
    expect([
      RuntimeParams.name,
      RuntimeParams.length,
      RuntimeParams.prototype.delete.length,
      RuntimeParams.prototype.has.length,
    ]).toEqual(['URLSearchParams', 0, 1, 1]);
  });
});

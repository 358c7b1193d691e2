// The runtime's URL class (the host's parser and setter primitives) against Node's own URL as the oracle.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createUrlClass } from '../../../sandbox-api/runtime/url.ts';
import { setUrlComponent } from '../../../host/bridge/primitives.ts';
import { urlRecord } from './harness.ts';

const RuntimeURL = createUrlClass(urlRecord, setUrlComponent);

const BASES = [
  'https://user:pw@example.com:8443/a/b?x=1&y=2#frag',
  'http://example.com/',
  'http://[::1]:8080/p',
  'http://192.168.0.1/p?q',
  'file:///C:/dir/file.txt',
  'file://server/share',
  'foo://host/path?q#h',
  'foo://host',
  'foo:/path/only',
  'mailto:someone@example.com',
  'data:text/plain,hello world',
  'ws://socket.example/chat',
  'https://example.com/?',
  'https://example.com/#',
];

const SETTERS = [
  'href',
  'protocol',
  'username',
  'password',
  'host',
  'hostname',
  'port',
  'pathname',
  'search',
  'hash',
] as const;

const VALUES = [
  '',
  'x',
  'https',
  'http:',
  'foo',
  'file',
  'ws:',
  '1x:',
  'new host',
  'other.example',
  'other.example:99',
  'other.example:',
  'h:abc',
  '[::2]',
  '[::2]:81',
  'a@b',
  'ÉXAMPLE.com',
  'xn--nxasmq6b',
  '8080',
  '65535',
  '65536',
  '0',
  '443',
  '80',
  '12abc',
  'abc',
  '/p/q',
  'p/q',
  '//double',
  '/a/../b/./c',
  'with space',
  'a?b#c',
  '\\\\back\\slash',
  '?a=1&b=2',
  'a b',
  '#x',
  '##',
  'ümlaut',
  '%41%zz',
  'user:name',
  'p@ss/w?rd#',
  '\t tab\n',
  ' lead',
  'trail ',
  'javascript:alert(1)',
  'http://other.example/x',
];

function applyWithNode(base: string, setter: (typeof SETTERS)[number], value: string): string {
  const url = new URL(base);
  try {
    (url as unknown as Record<string, string>)[setter] = value;
  } catch {
    return 'throws';
  }
  return url.href;
}

function applyWithRuntime(base: string, setter: (typeof SETTERS)[number], value: string): string {
  const url = new RuntimeURL(base);
  try {
    (url as unknown as Record<string, string>)[setter] = value;
  } catch {
    return 'throws';
  }
  return url.href;
}

describe('URL (runtime) against Node URL', () => {
  it('parses every component like Node, with and without a base', () => {
    for (const base of BASES) {
      const ours = new RuntimeURL(base);
      const node = new URL(base);
      for (const key of [
        'href',
        'origin',
        'protocol',
        'username',
        'password',
        'host',
        'hostname',
        'port',
        'pathname',
        'search',
        'hash',
      ] as const) {
        expect(ours[key], `${base} ${key}`).toBe(node[key]);
      }
    }
    expect(new RuntimeURL('../x?y', 'https://a.example/b/c/d').href).toBe('https://a.example/b/x?y');
    expect(() => new RuntimeURL('/relative')).toThrow(TypeError);
  });

  for (const setter of SETTERS) {
    it(`sets ${setter} like Node for every base and sample value`, () => {
      const mismatches: string[] = [];
      for (const base of BASES) {
        for (const value of VALUES) {
          const expected = applyWithNode(base, setter, value);
          const actual = applyWithRuntime(base, setter, value);
          if (actual !== expected)
            mismatches.push(`${base} .${setter} = ${JSON.stringify(value)}: ${actual} (Node: ${expected})`);
        }
      }
      expect(mismatches).toEqual([]);
    });
  }

  it('matches Node for random setter values', () => {
    const alphabet = fc.constantFrom(..."ab1:/?#@[]\\%. \t-_~!$&'()*+,;=é€".split(''));
    fc.assert(
      fc.property(
        fc.constantFrom(...BASES),
        fc.constantFrom(...SETTERS.filter((s) => s !== 'href')),
        fc.array(alphabet, { maxLength: 12 }),
        (base, setter, chars) => {
          const value = chars.join('');
          expect(applyWithRuntime(base, setter, value)).toBe(applyWithNode(base, setter, value));
        },
      ),
      { numRuns: 5000 },
    );
  });

  it('keeps searchParams live in both directions, like Node', () => {
    const ours = new RuntimeURL('https://a.example/?a=1&b=2&a=3#h');
    const node = new URL('https://a.example/?a=1&b=2&a=3#h');
    for (const url of [ours, node]) {
      url.searchParams.set('a', 'x y');
      url.searchParams.sort();
    }
    expect(ours.href).toBe(node.href);
    for (const url of [ours, node]) url.search = '';
    expect([ours.href, ours.searchParams.size]).toEqual([node.href, node.searchParams.size]);
    for (const url of [ours, node]) url.href = 'https://b.example/?z=%F0%9F%98%80';
    expect(ours.searchParams.get('z')).toBe(node.searchParams.get('z'));
    for (const url of [ours, node]) url.searchParams.delete('z');
    expect(ours.href).toBe(node.href);
  });

  it('has canParse and parse', () => {
    expect(RuntimeURL.canParse('https://x')).toBe(true);
    expect(RuntimeURL.canParse('x')).toBe(false);
    expect(RuntimeURL.canParse('x', 'https://a.example/')).toBe(true);
    expect(RuntimeURL.parse('nope')).toBeNull();
    expect(RuntimeURL.parse('https://x/')?.href).toBe('https://x/');
  });

  it(
    'applies the standard setter rules the old re-parse approximated: a host with an invalid port sets only the ' +
      'hostname',
    () => {
      const url = new RuntimeURL('http://example.net/path');
      url.host = 'example.com:65536';
      expect(url.href).toBe('http://example.com/path');
      const opaque = new RuntimeURL('wpt++://host/');
      opaque.hostname = 'te\u001fst';
      expect(opaque.hostname).toBe('te%1Fst');
      // A query emptied through searchParams goes through the same setter: an opaque path keeps the standard's form.
      const [ours, node] = [new RuntimeURL('data:space   ?q=1'), new URL('data:space   ?q=1')];
      for (const url of [ours, node]) url.searchParams.delete('q');
      expect(ours.href).toBe(node.href);
    },
  );

  it('converts arguments as WebIDL does and carries the standard class name', () => {
    expect([RuntimeURL.name, RuntimeURL.length]).toEqual(['URL', 1]);
    expect(() => new (RuntimeURL as unknown as new () => unknown)()).toThrow(TypeError);
    const url = new RuntimeURL('https://a.example/');
    expect(() => {
      url.hash = Symbol('h') as never;
    }).toThrow(TypeError);
    url.pathname = { toString: () => '/from-object' } as never;
    expect(url.pathname).toBe('/from-object');
    expect(Object.getOwnPropertyDescriptor(RuntimeURL.prototype, Symbol.toStringTag)).toEqual({
      value: 'URL',
      writable: false,
      enumerable: false,
      configurable: true,
    });
  });
});

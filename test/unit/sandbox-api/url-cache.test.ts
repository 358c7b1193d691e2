import { describe, it, expect } from 'vitest';
import { createUrlCache } from '../../../sandbox-api/runtime/url-cache.ts';
import type { UrlRecord } from '../../../sandbox-api/runtime/contract.ts';

function record(href: string): UrlRecord {
  const url = new URL(href);
  const { origin, protocol, username, password, host, hostname, port, pathname, search, hash } = url;
  return { href: url.href, origin, protocol, username, password, host, hostname, port, pathname, search, hash };
}

describe('createUrlCache', () => {
  it('asks the host once per distinct input and base', () => {
    const calls: string[] = [];
    const cache = createUrlCache((input, base) => {
      calls.push(`${input}|${base}`);
      return URL.canParse(input, base) ? record(new URL(input, base).href) : null;
    });
    expect(cache.parse('https://a.test/x', undefined)?.pathname).toBe('/x');
    expect(cache.parse('https://a.test/x', undefined)?.pathname).toBe('/x');
    expect(cache.parse('/y', 'https://a.test/')?.href).toBe('https://a.test/y');
    expect(cache.parse('not a url', undefined)).toBeNull();
    expect(cache.parse('not a url', undefined)).toBeNull();
    expect(calls).toEqual(['https://a.test/x|undefined', '/y|https://a.test/', 'not a url|undefined']);
  });

  it('hands out frozen records', () => {
    const cache = createUrlCache((input) => record(input));
    const parsed = cache.parse('https://a.test/', undefined)!;
    expect(Object.isFrozen(parsed)).toBe(true);
  });

  it('uses seeded records without asking the host, and ignores malformed seeds', () => {
    const calls: string[] = [];
    const cache = createUrlCache((input) => (calls.push(input), record(input)));
    cache.seed([
      ['https://seeded.test/p', record('https://seeded.test/p')],
      ['bad'],
      'junk',
      ['https://x.test/', { href: 1 }],
    ]);
    expect(cache.parse('https://seeded.test/p', undefined)?.pathname).toBe('/p');
    expect(calls).toEqual([]);
    cache.parse('https://x.test/', undefined);
    expect(calls).toEqual(['https://x.test/']);
    cache.seed(undefined);
  });

  it('stays bounded', () => {
    let calls = 0;
    const cache = createUrlCache((input) => (calls++, record(input)));
    for (let i = 0; i < 600; i++) cache.parse(`https://a.test/${i}`, undefined);
    cache.parse('https://a.test/0', undefined);
    expect(calls).toBe(601);
  });
});

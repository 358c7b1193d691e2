// One parameter rewritten in a raw query or form, every other pair left exactly as written.
import { describe, expect, it } from 'vitest';
import { paramValues, splitUrl, urlWithParam, withParam } from '../../../host/oauth-seal/raw-params.ts';

describe('raw parameters', () => {
  it('reads every value of a name, decoded as a form is', () => {
    expect(paramValues('state=a%20b&x=1&state=c+d&st%61te=e', 'state')).toEqual(['a b', 'c d', 'e']);
    expect(paramValues('', 'state')).toEqual([]);
    expect(paramValues('code', 'code')).toEqual(['']);
  });

  it('replaces a value in place and keeps the other pairs byte for byte', () => {
    const query = 'client_id=c&scope=read%20write&state=%7B%22installationId%22%3A%22i%22%7D&prompt=consent';
    expect(withParam(query, 'state', 'n.s')).toBe('client_id=c&scope=read%20write&state=n.s&prompt=consent');
    expect(withParam('a=1&b=+', 'state', 'x y')).toBe('a=1&b=+&state=x%20y');
    expect(withParam('state=1&a=2&state=3', 'state', null)).toBe('a=2');
  });

  it("rewrites a URL's query, leaving its fragment and the rest alone", () => {
    expect(splitUrl('https://p.test/a?b=1#f?x')).toEqual({ head: 'https://p.test/a', query: 'b=1', fragment: '#f?x' });
    expect(urlWithParam('https://p.test/a?ticket=t&q=1#top', 'ticket', null)).toBe('https://p.test/a?q=1#top');
    expect(urlWithParam('https://p.test/a?ticket=t', 'ticket', null)).toBe('https://p.test/a');
    expect(urlWithParam('/oauth', 'ticket', 'abc')).toBe('/oauth?ticket=abc');
  });
});

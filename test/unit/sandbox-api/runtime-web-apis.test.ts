// The web APIs guest code sees inside a real isolate, backed by the harness's Node primitives:
// fetch over the bridge, URL, crypto, TextDecoder, timers and console.
import { createHmac } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Harness } from './harness.ts';

let harness: Harness;
beforeEach(async () => {
  harness = await Harness.create({
    fetch: (request) => ({
      ok: true,
      value: {
        status: 201,
        statusText: 'Created',
        headers: [
          ['content-type', 'application/json'],
          ['set-cookie', 'a=1'],
          ['set-cookie', 'b=2'],
        ],
        body: new TextEncoder().encode(JSON.stringify({ echoed: request.method })),
        url: request.url + '#final',
        redirected: true,
      },
    }),
  });
});
afterEach(() => harness.dispose());

const run = async <T>(body: string): Promise<T> =>
  JSON.parse(await harness.evaluate<string>(`(async () => JSON.stringify(await (async () => { ${body} })()))()`));

describe('guest fetch()', () => {
  it('sends a copied BridgeRequest and returns a Response with url and redirected', async () => {
    const result = await run<Record<string, unknown>>(`
      const response = await fetch(new URL('https://api.example/items?x=1'), {
        method: 'post', headers: { 'X-Token': 't' }, body: new URLSearchParams({ q: 'a b' }), redirect: 'manual' });
      return { status: response.status, statusText: response.statusText, ok: response.ok, url: response.url,
        redirected: response.redirected,
        type: response.type, cookies: response.headers.getSetCookie(), body: await response.json(),
        immutable: (() => { try { response.headers.set('x', 'y'); return false; } catch (e) {
          return e instanceof TypeError; } })() };`);
    expect(result).toEqual({
      status: 201,
      statusText: 'Created',
      ok: true,
      url: 'https://api.example/items?x=1#final',
      redirected: true,
      type: 'basic',
      cookies: ['a=1', 'b=2'],
      body: { echoed: 'POST' },
      immutable: true,
    });
    expect(harness.fetchCalls).toHaveLength(1);
    const call = harness.fetchCalls[0];
    expect(call).toMatchObject({
      url: 'https://api.example/items?x=1',
      method: 'POST',
      redirect: 'manual',
      headers: [
        ['content-type', 'application/x-www-form-urlencoded;charset=UTF-8'],
        ['x-token', 't'],
      ],
    });
    expect(new TextDecoder().decode(call.body as Uint8Array)).toBe('q=a+b');
  });

  it('rejects relative URLs with a TypeError before reaching the bridge', async () => {
    const result = await run(
      `try { await fetch('/relative'); return 'no error'; } catch (error) { return [error.name, error.message]; }`,
    );
    expect(result).toEqual(['TypeError', 'Failed to parse URL from /relative']);
    expect(harness.fetchCalls).toHaveLength(0);
  });
});

describe('URL', () => {
  it('parses with the host parser and applies setters as Node does', async () => {
    const script = `
      const url = new URL('../b/c?x=1#h', 'https://user@example.com:8443/a/z');
      const seen = [url.href];
      url.pathname = '/new path';
      url.search = 'q=1&q=2';
      url.hash = 'frag';
      url.port = '8080';
      url.hostname = 'other.example';
      url.username = 'who:me';
      url.password = 'p@ss';
      url.protocol = 'http';
      seen.push(url.href, url.origin, URL.canParse('nope'), URL.canParse('/x', 'https://a.example'));
      url.port = '80';
      seen.push(url.href);
      url.href = 'https://b.example/';
      seen.push(url.toString(), JSON.stringify({ url }));
      try { url.href = 'not a url'; } catch (error) { seen.push(error.name); }
      return seen;`;
    const inNode = new Function(`return (async () => { ${script} })()`) as () => Promise<unknown>;
    const expected = await inNode();
    expect(expected).toContain('http://who%3Ame:p%40ss@other.example:8080/new%20path?q=1&q=2#frag');
    expect(await run(script)).toEqual(expected);
  });

  it('keeps searchParams and search in sync both ways', async () => {
    const result = await run(`
      const url = new URL('https://a.example/p?a=1&b=2#top');
      const params = url.searchParams;
      params.append('c', 'x y');
      const afterAppend = url.href;
      url.search = '?z=9';
      const afterSearch = [...params];
      params.delete('z');
      return [afterAppend, afterSearch, url.href, url.searchParams === params];`);
    expect(result).toEqual(['https://a.example/p?a=1&b=2&c=x+y#top', [['z', '9']], 'https://a.example/p#top', true]);
  });
});

describe('crypto', () => {
  it('computes HMAC-SHA256 like node:crypto and verifies it', async () => {
    const expected = createHmac('sha256', 'secret-key').update('1700000000.{"a":1}').digest('hex');
    const result = await run<[string, boolean, boolean, boolean]>(`
      const enc = new TextEncoder();
      const key = await crypto.subtle.importKey('raw', enc.encode('secret-key'), { name: 'HMAC', hash: 'SHA-256' },
        false, ['sign', 'verify']);
      const signature = await crypto.subtle.sign('HMAC', key, enc.encode('1700000000.{"a":1}'));
      const hex = [...new Uint8Array(signature)].map((b) => b.toString(16).padStart(2, '0')).join('');
      const good = await crypto.subtle.verify('HMAC', key, signature, enc.encode('1700000000.{"a":1}'));
      const bad = await crypto.subtle.verify('HMAC', key, signature, enc.encode('1700000000.{"a":2}'));
      const exportRefused = await crypto.subtle.exportKey('raw', key).then(() => false,
        (e) => e.name === 'InvalidAccessError');
      return [hex, good, bad, exportRefused];`);
    expect(result).toEqual([expected, true, false, true]);
  });

  it('digests with SHA-256 like node:crypto', async () => {
    const result = await run(`
      const digest = await crypto.subtle.digest('sha-256', new TextEncoder().encode('abc'));
      return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');`);
    expect(result).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('makes v4 UUIDs and fills typed arrays up to 65536 bytes', async () => {
    const result = await run<[string[], boolean, string]>(`
      const uuids = [crypto.randomUUID(), crypto.randomUUID()];
      const filled = crypto.getRandomValues(new Uint32Array(16)).some((value) => value !== 0);
      let quota = 'none';
      try { crypto.getRandomValues(new Uint8Array(65537)); } catch (error) { quota = error.name; }
      return [uuids, filled, quota];`);
    const [uuids, filled, quota] = result;
    for (const uuid of uuids)
      expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(uuids[0]).not.toBe(uuids[1]);
    expect(filled).toBe(true);
    expect(quota).toBe('QuotaExceededError');
  });
});

describe('text and base64', () => {
  it('decodes non-UTF-8 encodings through the host (streams too) and UTF-8 locally', async () => {
    const result = await run(`return [
      new TextDecoder('latin1').decode(new Uint8Array([0x63, 0x61, 0x66, 0xe9])),
      new TextDecoder('latin1').encoding,
      new TextDecoder().decode(new Uint8Array([0xef, 0xbb, 0xbf, 0xe2, 0x82, 0xac, 0xff])),
      (() => { try { new TextDecoder('no-such-encoding'); } catch (e) { return e.name; } })(),
      (() => { const d = new TextDecoder('shift_jis');
        return d.decode(new Uint8Array([0x82]), { stream: true }) + d.decode(new Uint8Array([0xa0])); })(),
      btoa('hi\\u00ff'), atob(' aGk = '),
    ];`);
    expect(result).toEqual(['café', 'windows-1252', '€\ufffd', 'RangeError', 'あ', 'aGn/', 'hi']);
  });
});

describe('timers', () => {
  it('fires timeouts and intervals through the worker clock, and honours clear*', async () => {
    await harness.evaluate(`
      globalThis.events = [];
      setTimeout((a, b) => events.push('timeout ' + a + b), 5, 'x', 'y');
      const cancelled = setTimeout(() => events.push('cancelled'), 5);
      clearTimeout(cancelled);
      let ticks = 0;
      const interval = setInterval(() => { events.push('tick'); if (++ticks === 3) clearInterval(interval); }, 2);
      setTimeout(() => { throw new Error('timer boom'); }, 1);
      queueMicrotask(() => events.push('microtask'));
      undefined`);
    // Until the last of them has run (the third tick, due after 6 ms): a non-cleared 5 ms timeout would have fired by
    // then.
    let events: string[] = [];
    for (
      const started = Date.now();
      Date.now() - started < 30_000;
      await new Promise((resolve) => setTimeout(resolve, 10))
    ) {
      events = JSON.parse(await harness.evaluate<string>('JSON.stringify(events)'));
      if (
        events.filter((event) => event === 'tick').length === 3 &&
        events.includes('timeout xy') &&
        harness.logs.some((line) => line.text.includes('timer boom'))
      )
        break;
    }
    expect(events[0]).toBe('microtask');
    expect(events.filter((event: string) => event === 'tick')).toHaveLength(3);
    expect(events).toContain('timeout xy');
    expect(events).not.toContain('cancelled');
    expect(harness.logs.some((line) => line.level === 'error' && line.text.includes('timer boom'))).toBe(true);
  });
});

describe('console', () => {
  it('sends one formatted line per call with its level', async () => {
    await harness.evaluate(`
      const cyclic = { name: 'c' }; cyclic.self = cyclic;
      console.log('%s has %d items', 'cart', 3, { extra: true });
      console.info(cyclic);
      console.warn([1, 'two', [3]]);
      console.error(new TypeError('bad thing'));
      console.debug('x'.repeat(20000));
      console.log(function named() {}, null, undefined, 10n);
      undefined`);
    const [log, info, warn, error, debug, values] = harness.logs;
    expect(log).toEqual({ level: 'log', text: 'cart has 3 items { extra: true }' });
    expect(info).toEqual({ level: 'info', text: "{ name: 'c', self: [Circular] }" });
    expect(warn).toEqual({ level: 'warn', text: "[ 1, 'two', [ 3 ] ]" });
    expect(error.level).toBe('error');
    expect(error.text).toMatch(/^TypeError: bad thing\n\s+at /);
    expect(debug.level).toBe('debug');
    expect(new TextEncoder().encode(debug.text).length).toBeLessThanOrEqual(8192);
    expect(debug.text).toMatch(/… \[truncated \d+ bytes\]$/);
    expect(values).toEqual({ level: 'log', text: '[Function: named] null undefined 10n' });
  });
});

// The console's pure helpers, in Node: the event-stream parser (what the live log reads), the
// http(s)-only URL rule for guest URLs, and the split of manifest problems into file and pointer.
import { describe, it, expect } from 'vitest';
import { createEventStreamParser, type StreamMessage } from '../../../console/src/api/sse.ts';
import { safeHttpUrl, urlOf } from '../../../console/src/contentkit/urls.ts';
import { parseProblem } from '../../../console/src/ui/format.ts';
import { schemaFor } from '../../../console/src/ui/configuration.ts';

describe('the event-stream parser', () => {
  it('yields one message per blank-line-terminated block, across chunk boundaries, skipping comments', () => {
    const messages: StreamMessage[] = [];
    const feed = createEventStreamParser((message) => messages.push(message));
    feed(': keep-alive\n\nevent: dispatch\nda');
    feed('ta: {"eventId":"evt_1"}\n');
    expect(messages).toEqual([]);
    feed('\nevent: dispatch\r\ndata: {"a":\r\ndata: 1}\r\n\r\ndata:plain\n\n');
    expect(messages).toEqual([
      { event: 'dispatch', data: '{"eventId":"evt_1"}' },
      { event: 'dispatch', data: '{"a":\n1}' },
      { event: 'message', data: 'plain' },
    ]);
  });

  it('drops a block without data and keeps an unfinished one for later', () => {
    const messages: StreamMessage[] = [];
    const feed = createEventStreamParser((message) => messages.push(message));
    feed('event: dispatch\n\nevent: dispatch\ndata: x');
    expect(messages).toEqual([]);
    feed('\n\n');
    expect(messages).toEqual([{ event: 'dispatch', data: 'x' }]);
  });
});

describe('safeHttpUrl', () => {
  it('keeps absolute http(s) URLs', () => {
    expect(safeHttpUrl('https://example.com/a?b#c')).toBe('https://example.com/a?b#c');
    expect(safeHttpUrl('HTTP://127.0.0.1:8787/x')).toBe('http://127.0.0.1:8787/x');
  });

  it('refuses every other scheme, spelling and relative URL', () => {
    for (const url of [
      'javascript:alert(1)',
      '  JaVaScRiPt:alert(1)',
      'java\tscript:alert(1)',
      '\u0000javascript:alert(1)',
      'data:text/html,<script>1</script>',
      'vbscript:msgbox(1)',
      'blob:https://x/1',
      'file:///etc/passwd',
      '/v1/integrations',
      '//evil.test/x',
      'evil.test',
      '',
      'https//x',
    ])
      expect(safeHttpUrl(url), JSON.stringify(url)).toBeNull();
    for (const value of [undefined, null, 42, {}, ['https://x.test']]) expect(safeHttpUrl(value)).toBeNull();
    expect(safeHttpUrl(`https://x.test/${'a'.repeat(5000)}`)).toBeNull();
  });

  it('reads ContentKit { url } objects by own property only', () => {
    expect(urlOf({ url: 'https://x.test/' })).toEqual({ url: 'https://x.test/', raw: 'https://x.test/' });
    expect(urlOf({ url: 'javascript:1' })).toEqual({ url: null, raw: 'javascript:1' });
    expect(urlOf(Object.create({ url: 'https://inherited.test/' }))).toEqual({ url: null, raw: '' });
  });
});

describe('parseProblem', () => {
  it('splits file, pointer and message', () => {
    expect(parseProblem('fixtures/a/platform-manifest.yaml: /scopes/1: scope "x" is unknown')).toEqual({
      file: 'fixtures/a/platform-manifest.yaml',
      pointer: '/scopes/1',
      message: 'scope "x" is unknown',
    });
    expect(parseProblem('fixtures/a/platform-manifest.yaml: manifest must be a mapping')).toEqual({
      file: 'fixtures/a/platform-manifest.yaml',
      pointer: '',
      message: 'manifest must be a mapping',
    });
    expect(parseProblem('no separator')).toEqual({ file: '', pointer: '', message: 'no separator' });
  });
});

describe('the configuration schema of an installation', () => {
  const schema = (name: string) => ({
    properties: { [name]: { type: 'string' as const, title: name, description: name } },
  });
  it('is chosen as the host chooses it: account, space (else site), site', () => {
    const all = { account: schema('a'), space: schema('sp'), site: schema('si') };
    expect(schemaFor(all, 'organization')).toBe(all.account);
    expect(schemaFor(all, 'space')).toBe(all.space);
    expect(schemaFor({ site: all.site }, 'space')).toBe(all.site);
    expect(schemaFor(all, 'site')).toBe(all.site);
  });

  it("is none for GitBook's component form, which has no property schema to show", () => {
    expect(schemaFor({ account: { componentId: 'config' } }, 'organization')).toBeUndefined();
    expect(schemaFor({ space: { componentId: 'config' } }, 'space')).toBeUndefined();
    expect(schemaFor(undefined, 'site')).toBeUndefined();
  });
});

// The runtime's Fetch/URL/File API classes as guest code sees them in a real isolate, after the
// bundler: each carries the name the standard spells (not URL2 or _Blob), in stack frames too, and
// its instances, iterators and the console have the standard's class strings.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness } from './harness.ts';

let harness: Harness;
beforeAll(async () => {
  harness = await Harness.create();
});
afterAll(() => harness.dispose());

const CLASSES = ['Headers', 'URL', 'URLSearchParams', 'Blob', 'File', 'FormData'];

describe('global class names', () => {
  it('are the standard names, with the WebIDL lengths and class strings', async () => {
    const result = await harness.evaluate<string>(`JSON.stringify(${JSON.stringify(CLASSES)}.map((name) => {
      const value = globalThis[name];
      const instance = name === 'URL' ? new URL('https://a.example/') : name === 'File' ? new File([],
        'f') : new value();
      const tag = Object.getOwnPropertyDescriptor(value.prototype, Symbol.toStringTag);
      return [name, value.name, value.length, Object.prototype.toString.call(instance), tag.value, 'get' in tag];
    }))`);
    expect(JSON.parse(result)).toEqual([
      ['Headers', 'Headers', 0, '[object Headers]', 'Headers', false],
      ['URL', 'URL', 1, '[object URL]', 'URL', false],
      ['URLSearchParams', 'URLSearchParams', 0, '[object URLSearchParams]', 'URLSearchParams', false],
      ['Blob', 'Blob', 0, '[object Blob]', 'Blob', false],
      ['File', 'File', 2, '[object File]', 'File', false],
      ['FormData', 'FormData', 0, '[object FormData]', 'FormData', false],
    ]);
  });

  it('name their constructors and methods by the standard names in stack traces', async () => {
    const frames = await harness.evaluate<string[][]>(`[
      () => new URL('not a url'),
      () => new Headers().append('bad name', 'x'),
      () => URLSearchParams.prototype.get.call(new URLSearchParams()),
      () => new Blob(null),
    ].map((attempt) => {
      try {
        attempt();
        return [];
      } catch (error) {
        return error.stack.split('\\n').slice(1).map((line) => line.trim().split(' (')[0]);
      }
    })`);
    expect(frames[0]).toContain('at new URL');
    expect(frames[1]).toContain('at Headers.append');
    expect(frames[2]).toContain('at URLSearchParams.get');
    expect(frames[3]).toContain('at new Blob');
  });

  it('give iterators and the console the standard class strings', async () => {
    expect(
      await harness.evaluate(
        `[new Headers().keys(), new URLSearchParams().values(), new FormData().entries(), console].map((value) => ` +
          `Object.prototype.toString.call(value))`,
      ),
    ).toEqual([
      '[object Headers Iterator]',
      '[object URLSearchParams Iterator]',
      '[object FormData Iterator]',
      '[object console]',
    ]);
  });
});

describe('every global', () => {
  it(
    'that is a class or function carries the name it is reached ' + 'by, and the runtime objects their class strings',
    async () => {
      const seen = await harness.evaluate<{ misnamed: string[]; tags: string[] }>(`(() => {
      const misnamed = [];
      for (const name of Object.getOwnPropertyNames(globalThis)) {
        const value = globalThis[name];
        if (typeof value === 'function' && value.name !== name)
          misnamed.push(name + ' is named ' + JSON.stringify(value.name));
      }
      const tags = [crypto, crypto.subtle, navigator, performance, console, new TransformStream(),
        new Response('x').body, new AbortController().signal, new TextDecoderStream(), new CompressionStream('gzip')]
        .map((value) => Object.prototype.toString.call(value));
      return { misnamed, tags };
    })()`);
      expect(seen.misnamed).toEqual([]);
      expect(seen.tags).toEqual([
        '[object Crypto]',
        '[object SubtleCrypto]',
        '[object Navigator]',
        '[object Performance]',
        '[object console]',
        '[object TransformStream]',
        '[object ReadableStream]',
        '[object AbortSignal]',
        '[object TextDecoderStream]',
        '[object CompressionStream]',
      ]);
    },
  );
});

// performance, navigator, self and URLPattern as guest code sees them in a real isolate: the
// realm's clock (its origin is the realm's start, never the snapshot's; whole milliseconds;
// monotonic), the honest user agent, and URLPattern on the runtime's own URL parser.
import { afterEach, describe, expect, it } from 'vitest';
import { Harness } from './harness.ts';

const harnesses: Harness[] = [];
afterEach(() => {
  for (const harness of harnesses.splice(0)) harness.dispose();
});

async function create(runtime: 'snapshot' | 'install' = 'snapshot'): Promise<Harness> {
  const harness = await Harness.create({ runtime });
  harnesses.push(harness);
  return harness;
}

const run = async <T>(harness: Harness, body: string): Promise<T> =>
  JSON.parse(await harness.evaluate<string>(`(async () => JSON.stringify(await (async () => { ${body} })()))()`));

describe('performance', () => {
  it.each(['snapshot', 'install'] as const)(
    'starts its clock when the realm begins (%s), in whole milliseconds that never go back',
    async (runtime) => {
      const before = Date.now();
      const harness = await create(runtime);
      const after = Date.now();
      const result = await run<{
        origin: number;
        readings: [number, number, number][];
        json: unknown;
        tag: string;
        extendsTarget: boolean;
      }>(
        harness,
        `
      performance.now();
      const origin = performance.timeOrigin;
      const readings = [];
      for (let i = 0; i < 2000; i++) {
        const before = Date.now() - origin;
        const now = performance.now();
        readings.push([before, now, Date.now() - origin]);
      }
      return { origin, readings, json: performance.toJSON(), tag: Object.prototype.toString.call(performance),
        extendsTarget: performance instanceof EventTarget };`,
      );
      expect(result.origin).toBeGreaterThanOrEqual(before);
      expect(result.origin).toBeLessThanOrEqual(after);
      // Whole milliseconds, exactly Date.now()'s (bracketed by readings before and after), never going back.
      for (const [index, [dateBefore, now, dateAfter]] of result.readings.entries()) {
        expect(Number.isInteger(now) && now >= dateBefore && now <= dateAfter).toBe(true);
        if (index > 0) expect(now).toBeGreaterThanOrEqual(result.readings[index - 1][1]);
      }
      expect(result.json).toEqual({ timeOrigin: result.origin });
      expect(result.tag).toBe('[object Performance]');
      expect(result.extendsTarget).toBe(true);
    },
  );

  it('gives each isolate made from the same snapshot its own origin', async () => {
    const first = await create();
    const firstOrigin = await first.evaluate<number>('performance.timeOrigin');
    const startedAfter = Date.now() + 2;
    while (Date.now() < startedAfter) {
      // a distinct millisecond for the second realm's start
    }
    const second = await create();
    expect(await second.evaluate<number>('performance.timeOrigin')).toBeGreaterThan(firstOrigin);
  });

  it('cannot be constructed nor called on another receiver', async () => {
    const harness = await create();
    const result = await run(
      harness,
      `
      const attempt = (fn) => { try { fn(); return 'no error'; } catch (e) { return e.constructor.name; } };
      return [attempt(() => new Performance()), attempt(() => Performance.prototype.now.call({}))];`,
    );
    expect(result).toEqual(['TypeError', 'TypeError']);
  });
});

describe('navigator and self', () => {
  it('name this host in userAgent, with the standard class name and tag', async () => {
    const harness = await create();
    const result = await run(
      harness,
      `
      let constructed;
      try { new Navigator(); } catch (e) { constructed = e.constructor.name; }
      return [navigator.userAgent, Object.prototype.toString.call(navigator), navigator instanceof Navigator,
        Navigator.name, constructed];`,
    );
    expect(result).toEqual(['integration-host', '[object Navigator]', true, 'Navigator', 'TypeError']);
  });

  it('self is the global object, and a writable, non-enumerable global', async () => {
    const harness = await create();
    const result = await run(
      harness,
      `
      const d = Object.getOwnPropertyDescriptor(globalThis, 'self');
      return [self === globalThis, d.writable, d.enumerable, d.configurable];`,
    );
    expect(result).toEqual([true, true, false, true]);
  });
});

describe('URLPattern', () => {
  it('matches and extracts groups through the runtime URL parser', async () => {
    const harness = await create();
    const result = await run(
      harness,
      `
      const pattern = new URLPattern({ pathname: '/books/:id(\\\\d+)' });
      const match = pattern.exec('https://example.com/books/42?x=1');
      const relative = new URLPattern('/items/*', 'https://shop.example');
      return [pattern.test('https://example.com/books/abc'), match.pathname.groups.id,
        relative.test('https://shop.example/items/a/b'),
        relative.hostname, Object.prototype.toString.call(pattern)];`,
    );
    expect(result).toEqual([false, '42', true, 'shop.example', '[object URLPattern]']);
  });

  it('keeps using the runtime URL when a guest replaced the global before its first use', async () => {
    const harness = await create();
    const result = await run(
      harness,
      `
      globalThis.URL = class FakeURL { constructor() { throw new Error('fake URL used'); } };
      return new URLPattern({ hostname: '*.example.com' }).test('https://api.example.com/');`,
    );
    expect(result).toBe(true);
  });
});

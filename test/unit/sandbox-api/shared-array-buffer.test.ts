// SharedArrayBuffer as guest code sees it: a lazily defined global (its first read loads the
// shared-memory module), frozen once read, in both realms; the Encoding standard's [AllowShared]
// inputs work on it as the WPT encoding files use them (decode of shared views and buffers, in one
// piece and streamed, encodeInto into shared views); and structuredClone refuses it.
import { afterEach, describe, expect, it } from 'vitest';
import { Harness } from './harness.ts';

let harness: Harness | undefined;
afterEach(() => harness?.dispose());

const run = async <T>(body: string): Promise<T> =>
  JSON.parse(await harness!.evaluate<string>(`(async () => JSON.stringify(await (async () => { ${body} })()))()`));

/** Guest code: `shared(bytes)` is a Uint8Array on a new SharedArrayBuffer holding them. */
const SHARED =
  `const shared = (bytes) => { const view = new Uint8Array(new SharedArrayBuffer(bytes.length)); view.set(bytes); ` +
  `return view; };`;

describe.each(['snapshot', 'install'] as const)('the SharedArrayBuffer global (%s realm)', (runtime) => {
  it('stands as an accessor until first read, which loads the shared-memory module; then a frozen class', async () => {
    harness = await Harness.create({ runtime });
    expect(await harness.evaluate(`typeof Object.getOwnPropertyDescriptor(globalThis, 'SharedArrayBuffer').get`)).toBe(
      'function',
    );
    expect(harness.loadedModules).not.toContain('shared-memory');
    const seen = await run(`
      const Shared = SharedArrayBuffer;
      const descriptor = Object.getOwnPropertyDescriptor(globalThis, 'SharedArrayBuffer');
      const buffer = new Shared(8, { maxByteLength: 16 });
      buffer.grow(12);
      return {
        global: [descriptor.value === Shared, descriptor.writable, descriptor.enumerable, descriptor.configurable],
        frozen: [Object.isFrozen(Shared), Object.isFrozen(Shared.prototype),
          Object.isFrozen(Object.getOwnPropertyDescriptor(Shared.prototype, 'byteLength').get)],
        instance: [Shared.name, Object.prototype.toString.call(buffer), buffer.byteLength, buffer.growable,
          new Uint8Array(buffer).length],
        others: [typeof Atomics, typeof WebAssembly],
      };`);
    expect(seen).toEqual({
      global: [true, true, false, true],
      frozen: [true, true, true],
      instance: ['SharedArrayBuffer', '[object SharedArrayBuffer]', 12, true, 12],
      others: ['undefined', 'undefined'],
    });
    expect(harness.loadedModules).toContain('shared-memory');
  });
});

describe("Encoding on shared memory (the WPT encoding files' SharedArrayBuffer cases)", () => {
  it('decodes shared views and a bare SharedArrayBuffer, UTF-8 here and every other encoding on the host', async () => {
    harness = await Harness.create();
    const decoded = await run(`${SHARED}
      return [
        new TextDecoder().decode(shared([0xef, 0xbb, 0xbf, 0x68, 0xc3, 0xa9])),
        new TextDecoder().decode(shared([0x68, 0x69]).buffer),
        new TextDecoder('utf-16le').decode(shared([0x41, 0x00, 0x3d, 0xd8, 0x00, 0xde])),
        new TextDecoder('shift_jis').decode(shared([0x82, 0xa0]).buffer),
        new TextDecoder('windows-1252').decode(new DataView(shared([0x80, 0x41]).buffer)),
      ];`);
    expect(decoded).toEqual(['hé', 'hi', 'A😀', 'あ', '€A']);
  });

  it('streams over shared windows of every size, as textdecoder-streaming does', async () => {
    harness = await Harness.create();
    const string = '\x00123ABCabc\x80\xFF\u0100\u1000\uFFFD\uD800\uDC00\uDBFF\uDFFF';
    const results = await run<string[]>(`${SHARED}
      const string = ${JSON.stringify(string)};
      const encodings = { 'utf-8': (s) => [...new TextEncoder().encode(s)], 'utf-16le': (s) => [...s].flatMap((c) => {
        const out = []; for (let i = 0; i < c.length; i++) out.push(c.charCodeAt(i) & 0xff, c.charCodeAt(i) >> 8);
        return out; }) };
      encodings['utf-16be'] = (s) => { const le = encodings['utf-16le'](s); const be = []; for (let i = 0;
        i < le.length; i += 2) be.push(le[i + 1], le[i]); return be; };
      const results = [];
      for (const [encoding, encode] of Object.entries(encodings)) {
        const octets = encode(string);
        for (let length = 1; length <= 5; length++) {
          const decoder = new TextDecoder(encoding);
          let out = '';
          for (let i = 0; i < octets.length; i += length) out += decoder.decode(shared(octets.slice(i, i + length)), {
            stream: true });
          results.push(out + decoder.decode() === string);
        }
      }
      return results;`);
    expect(results).toEqual(Array(15).fill(true));
  });

  it(
    'keeps what it was given: bytes changed after a streamed ' + 'decode do not change its result (textdecoder-copy)',
    async () => {
      harness = await Harness.create();
      const seen = await run(`${SHARED}
      const first = shared([0xef, 0xbb]);
      const second = shared([0xbf, 0x40]);
      const decoder = new TextDecoder('utf-8');
      const start = decoder.decode(first.buffer, { stream: true });
      first.set([0x01, 0x02]);
      const legacy = new TextDecoder('shift_jis');
      const lead = shared([0x82]);
      const legacyStart = legacy.decode(lead, { stream: true });
      lead[0] = 0x41;
      return [start, decoder.decode(second.buffer), legacyStart, legacy.decode(shared([0xa0]))];`);
      expect(seen).toEqual(['', '@', '', 'あ']);
    },
  );

  it('encodes into shared views at an offset, leaving the bytes around them, as encodeInto does', async () => {
    harness = await Harness.create();
    const seen = await run(`
      const cases = [['Hi', 0], ['A', 10], ['\\u{1D306}', 4], ['\\u{1D306}A', 3], ['\\uD834A\\uDF06A¥Hi', 10],
        ['A\\uDF06', 4], ['¥¥', 4]];
      return cases.map(([input, length]) => {
        const buffer = new SharedArrayBuffer(length + 10);
        const all = new Uint8Array(buffer).fill(0x80);
        const view = new Uint8Array(buffer, 4, length);
        const { read, written } = new TextEncoder().encodeInto(input, view);
        return [read, [...view.subarray(0, written)], all.subarray(0, 4).every((b) => b === 0x80),
          all.subarray(4 + written).every((b) => b === 0x80)];
      });`);
    expect(seen).toEqual([
      [0, [], true, true],
      [1, [0x41], true, true],
      [2, [0xf0, 0x9d, 0x8c, 0x86], true, true],
      [0, [], true, true],
      [5, [0xef, 0xbf, 0xbd, 0x41, 0xef, 0xbf, 0xbd, 0x41, 0xc2, 0xa5], true, true],
      [2, [0x41, 0xef, 0xbf, 0xbd], true, true],
      [2, [0xc2, 0xa5, 0xc2, 0xa5], true, true],
    ]);
  });

  it('refuses a shared destination that is not a Uint8Array, and a bare SharedArrayBuffer', async () => {
    harness = await Harness.create();
    const seen = await run(`
      const attempt = (destination) => { try { new TextEncoder().encodeInto('', destination); return 'written';
        } catch (error) { return error.name; } };
      const kinds = ['Int8Array', 'Uint8ClampedArray', 'Int16Array', 'Float64Array', 'BigInt64Array', 'DataView'];
      return [...kinds.map((kind) => attempt(new globalThis[kind](new SharedArrayBuffer(0)))),
        attempt(new SharedArrayBuffer(10)), attempt(new Uint8Array(new SharedArrayBuffer(0)))];`);
    expect(seen).toEqual([...Array(7).fill('TypeError'), 'written']);
  });

  it('decodes shared chunks in a TextDecoderStream', async () => {
    harness = await Harness.create();
    const text = await run(`${SHARED}
      const stream = new TextDecoderStream('shift_jis');
      const writer = stream.writable.getWriter();
      void writer.write(shared([0x82])); void writer.write(shared([0xa0, 0x41])); void writer.close();
      let out = '';
      for (const reader = stream.readable.getReader(); ; ) { const { done, value } = await reader.read();
        if (done) break; out += value; }
      return out;`);
    expect(text).toBe('あA');
  });
});

describe('structuredClone and shared memory', () => {
  it.each([
    ['a SharedArrayBuffer', 'new SharedArrayBuffer(4)'],
    ['a view on one', 'new Uint16Array(new SharedArrayBuffer(4))'],
    ['one inside an object', '({ deep: [new DataView(new SharedArrayBuffer(4))] })'],
    ['one posing as an ArrayBuffer', 'Object.setPrototypeOf(new SharedArrayBuffer(4), ArrayBuffer.prototype)'],
    [
      'one with its tag changed',
      "Object.defineProperty(new SharedArrayBuffer(4), Symbol.toStringTag, { value: 'Thing' })",
    ],
  ])('refuses %s with a DataCloneError (the realm is not cross-origin isolated)', async (_what, expression) => {
    harness = await Harness.create();
    expect(
      await run(
        `try { structuredClone(${expression}); return 'cloned'; } catch (e) { return [e.constructor.name, e.name]; }`,
      ),
    ).toEqual(['DOMException', 'DataCloneError']);
  });

  it('refuses to transfer one', async () => {
    harness = await Harness.create();
    expect(
      await run(
        `try { structuredClone(1, { transfer: [new SharedArrayBuffer(4)] }); return 'cloned'; } catch (e) { ` +
          `return e.name; }`,
      ),
    ).toBe('DataCloneError');
  });
});

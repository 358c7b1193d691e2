// Blob, File, FormData and Body#formData()/blob() inside a real isolate. Multipart bodies made by
// the runtime are parsed by Node's own (undici) Response#formData(), and Node's are parsed by the
// runtime, so both directions follow what the platform does, byte for byte where it matters.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Harness } from './harness.ts';

let harness: Harness;
beforeEach(async () => {
  harness = await Harness.create();
});
afterEach(() => harness.dispose());

const run = async <T>(body: string): Promise<T> =>
  JSON.parse(await harness.evaluate<string>(`(async () => JSON.stringify(await (async () => { ${body} })()))()`));

describe('Blob and File', () => {
  it('concatenate strings, buffers and blobs, normalise the type, slice and read', async () => {
    const result = await run(`
      const blob = new Blob(['hé', new Uint8Array([33]), new Blob(['!?'])], { type: 'Text/Plain' });
      const file = new File([blob], 'note.txt', { type: 'text/plain', lastModified: 42 });
      return { size: blob.size, type: blob.type, text: await blob.text(), slice: await blob.slice(1, -1, 'x/y').text(),
        sliceType: blob.slice(0, 1, 'x/y').type,
        bytes: [...await blob.slice(-2).bytes()], badType: new Blob([], { type: 'ünï' }).type,
        file: [file.name, file.size, file.type, file.lastModified, file instanceof Blob,
          Object.prototype.toString.call(file)],
        ownKeys: Reflect.ownKeys(blob).length };`);
    expect(result).toEqual({
      size: 6,
      type: 'text/plain',
      text: 'hé!!?',
      slice: 'é!!',
      sliceType: 'x/y',
      bytes: [33, 63],
      badType: '',
      file: ['note.txt', 6, 'text/plain', 42, true, '[object File]'],
      ownKeys: 0,
    });
  });

  it('keep their bytes: writing to the source buffer later changes nothing', async () => {
    expect(
      await run(
        `const source = new Uint8Array([1, 2]); const blob = new Blob([source]); source[0] = 9; return [...await ` +
          `blob.bytes()];`,
      ),
    ).toEqual([1, 2]);
  });

  it('convert their arguments as WebIDL does: parts one by one as taken, then endings and type', async () => {
    const result = await run(`
      const log = [];
      const parts = ['a', { toString() { log.push('toString 1'); parts.pop(); return 'b'; } }, 'never'];
      const options = new Proxy({}, { get(target, key) { log.push('get ' + String(key)); return undefined; } });
      const blob = new Blob(parts, options);
      const errors = [null, 7, new Date(), /re/].map((bad) => {
        try { new Blob(bad); return 'no error'; } catch (e) { return e.name; } });
      const bags = [123, 'abc', true].map((bad) => {
        try { new Blob([], bad); return 'no error'; } catch (e) { return e.name; } });
      let endings = ''; try { new Blob([], { endings: 'unix' }); } catch (e) { endings = e.name; }
      return { log, text: await blob.text(), errors, bags, endings,
        native: await new Blob(['a\\r\\nb\\rc\\n'], { endings: 'native' }).text(),
        transparent: (await new Blob(['a\\r\\n']).text()).length,
        lengths: [Blob.length, File.length], names: [Blob.name, File.name] };`);
    expect(result).toEqual({
      log: ['toString 1', 'get endings', 'get type'],
      text: 'ab',
      errors: ['TypeError', 'TypeError', 'TypeError', 'TypeError'],
      bags: ['TypeError', 'TypeError', 'TypeError'],
      endings: 'TypeError',
      native: 'a\nb\nc\n',
      transparent: 3,
      lengths: [0, 2],
      names: ['Blob', 'File'],
    });
  });

  it('slice with [Clamp] positions: halves round to even, NaN is 0', async () => {
    expect(
      await run(`const blob = new Blob(['0123456789']);
      return [await blob.slice(1.5, 4.5).text(), await blob.slice(2.5).text(), await blob.slice(NaN, -2).text(),
        await blob.slice(-Infinity, Infinity).text()];`),
    ).toEqual(['23', '23456789', '01234567', '0123456789']);
  });

  it('stream() gives a ReadableStream of their bytes in chunks, from the lazily loaded streams module', async () => {
    const result = await run(`
      const big = new Uint8Array(150 * 1024).map((_, i) => i % 251);
      const stream = new Blob([big]).stream();
      const chunks = [];
      for await (const chunk of stream) chunks.push(chunk);
      const joined = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
      let offset = 0; for (const c of chunks) { joined.set(c, offset); offset += c.length; }
      const empty = await new Blob([]).stream().getReader().read();
      return { isStream: stream instanceof ReadableStream, chunks: chunks.length, same: joined.every((b,
        i) => b === big[i]), length: joined.length, emptyDone: empty.done,
        byob: typeof new Blob(['x']).stream().getReader({ mode: 'byob' }).read };`);
    expect(result).toEqual({
      isStream: true,
      chunks: 3,
      same: true,
      length: 150 * 1024,
      emptyDone: true,
      byob: 'function',
    });
  });
});

describe('FormData', () => {
  it('appends, sets, deletes and iterates like the XHR standard, turning Blobs into Files', async () => {
    const result = await run(`
      const form = new FormData();
      form.append('a', '1'); form.append('b', new Blob(['x'], { type: 'text/plain' })); form.append('a', '2');
      form.append('c', new File(['y'], 'orig.txt'), 'renamed.txt'); form.set('a', '3');
      const b = form.get('b'); const c = form.get('c');
      form.delete('missing');
      return { entries: [...form].map(([k, v]) => [k, typeof v === 'string' ? v : 'file:' + v.name]),
        all: form.getAll('a'),
        b: [b instanceof File, b.name, b.type], c: c.name, has: [form.has('c'), form.has('z')],
        none: form.get('z') };`);
    expect(result).toEqual({
      entries: [
        ['a', '3'],
        ['b', 'file:blob'],
        ['c', 'file:renamed.txt'],
      ],
      all: ['3'],
      b: [true, 'blob', 'text/plain'],
      c: 'renamed.txt',
      has: [true, false],
      none: null,
    });
  });

  it('iterates live and has "FormData Iterator" objects', async () => {
    expect(
      await run(`
      const form = new FormData(); form.append('a', '1'); form.append('b', '2');
      const seen = [];
      for (const [name] of form) { seen.push(name); if (name === 'a') { form.delete('b'); form.append('c', '3'); } }
      return [seen, Object.prototype.toString.call(form.keys()), FormData.length,
        FormData.prototype[Symbol.iterator] === FormData.prototype.entries];`),
    ).toEqual([['a', 'c'], '[object FormData Iterator]', 0, true]);
  });

  it(
    'keeps a leading U+FEFF of a name or value that also holds a lone surrogate (it is text, not a byte order ' +
      'mark)',
    async () => {
      const result = await run(`
      const form = new FormData();
      form.append('\\ufeff\\ud800a', '\\ufeffv\\udc00');
      return [...form].map(([k, v]) => [[...k].map((c) => c.codePointAt(0)), [...v].map((c) => c.codePointAt(0))]);`);
      expect(result).toEqual([
        [
          [0xfeff, 0xfffd, 0x61],
          [0xfeff, 0x76, 0xfffd],
        ],
      ]);
    },
  );

  it('as a body, encodes multipart/form-data that Node parses back exactly', async () => {
    const encoded = await run<{ type: string; bytes: number[] }>(`
      const form = new FormData();
      form.append('text', 'line1\\nline2 é');
      form.append('quote"d', 'v');
      form.append('bin', new File([new Uint8Array([0, 255, 13, 10, 45, 45])], 'a.bin',
        { type: 'application/x-thing' }));
      form.append('untyped', new File(['u'], 'u.txt'));
      const request = new Request('https://x.test/', { method: 'POST', body: form });
      return { type: request.headers.get('content-type'), bytes: [...await request.bytes()] };`);
    expect(encoded.type).toMatch(/^multipart\/form-data; boundary=----formdata-sandbox-[0-9a-z]{24}$/);
    const parsed = await new Response(new Uint8Array(encoded.bytes), {
      headers: { 'content-type': encoded.type },
    }).formData();
    expect(parsed.get('text')).toBe('line1\r\nline2 é');
    expect(parsed.get('quote"d')).toBe('v');
    const bin = parsed.get('bin') as File;
    expect([bin.name, bin.type, [...new Uint8Array(await bin.arrayBuffer())]]).toEqual([
      'a.bin',
      'application/x-thing',
      [0, 255, 13, 10, 45, 45],
    ]);
    expect((parsed.get('untyped') as File).type).toBe('application/octet-stream');
  });

  it('parses what Node encodes, strings as strings and file parts as Files', async () => {
    const form = new FormData();
    form.append('event', JSON.stringify({ type: 'x' }));
    form.append('fetch-body', new Blob([new Uint8Array([1, 2, 3, 0, 200])]), 'fetch-body');
    const request = new Request('https://x.test/', { method: 'POST', body: form });
    const type = request.headers.get('content-type')!;
    const bytes = [...new Uint8Array(await request.arrayBuffer())];
    const result = await run(`
      const form = await new Request('https://x.test/', { method: 'POST', headers: {
        'content-type': ${JSON.stringify(type)} }, body: new Uint8Array(${JSON.stringify(bytes)}) }).formData();
      const file = form.get('fetch-body');
      return { event: form.get('event'),
        file: [file instanceof File, file.name, file.type, [...await file.bytes()]] };`);
    expect(result).toEqual({
      event: '{"type":"x"}',
      file: [true, 'fetch-body', 'application/octet-stream', [1, 2, 3, 0, 200]],
    });
  });

  it('round-trips names and file names with quotes and line breaks', async () => {
    expect(
      await run(`const form = new FormData(); form.append('a"b\\nc', new File(['x'], 'f"1.txt'));
      const back = await new Response(form).formData(); const [[name, file]] = [...back]; return [name, file.name];`),
    ).toEqual(['a"b\r\nc', 'f"1.txt']);
  });

  it('parses application/x-www-form-urlencoded bodies', async () => {
    expect(
      await run(
        `const form = await new Response('a=1&b=x+y&a=%C3%A9', { headers: { 'content-type': ` +
          `'application/x-www-form-urlencoded' } }).formData(); return [...form];`,
      ),
    ).toEqual([
      ['a', '1'],
      ['b', 'x y'],
      ['a', 'é'],
    ]);
  });

  it('refuses other types and malformed multipart with a TypeError saying why', async () => {
    const result = await run(`
      const attempt = async (type, body) => {
        try {
          await new Response(body, { headers: type ? { 'content-type': type } : {} }).formData();
          return 'parsed';
        } catch (e) { return e.name + ': ' + e.message; }
      };
      return [await attempt('application/json', '{}'), await attempt('multipart/form-data', 'x'),
        await attempt('multipart/form-data; boundary=b', 'no boundary here'),
        await attempt('multipart/form-data; boundary=b',
          '--b\\r\\nContent-Disposition: form-data; name="a"\\r\\n\\r\\nunterminated')];`);
    expect(result).toEqual([
      'TypeError: Failed to parse body as FormData: its Content-Type is "application/json", not ' +
        'multipart/form-data or application/x-www-form-urlencoded',
      'TypeError: Failed to parse body as FormData: its multipart/form-data type has no valid boundary',
      'TypeError: Failed to parse body as FormData: no opening boundary',
      'TypeError: Failed to parse body as FormData: a part is not closed by a boundary',
    ]);
  });

  it('never lets a part contain the boundary it is sent with', async () => {
    // Content full of would-be delimiters: the encoder must pick a boundary none of them matches.
    const result = await run(`
      const parts = [];
      for (let i = 0; i < 50; i++) parts.push('--' + '----formdata-sandbox-' + Math.random().toString(36).slice(2));
      const form = new FormData(); form.append('a', parts.join('\\r\\n')); form.append('b', 'tail');
      const back = await new Response(form).formData();
      return [back.get('a') === parts.join('\\r\\n'), back.get('b'), [...back.keys()].length];`);
    expect(result).toEqual([true, 'tail', 2]);
  });
});

describe('Body#blob()', () => {
  it('returns the bytes with the Content-Type as the Blob type, and uses up the body', async () => {
    expect(
      await run(`const response = new Response(new Uint8Array([7, 8]), { headers: {
        'content-type': 'application/x-y' } });
      const blob = await response.blob(); return [blob.type, [...await blob.bytes()], response.bodyUsed];`),
    ).toEqual(['application/x-y', [7, 8], true]);
  });

  it('takes a Blob as a body with its type as Content-Type', async () => {
    expect(
      await run(`const request = new Request('https://x.test/', { method: 'PUT', body: new File(['z'], 'z.txt', {
        type: 'text/x-z' }) });
      return [request.headers.get('content-type'), await request.text()];`),
    ).toEqual(['text/x-z', 'z']);
  });
});

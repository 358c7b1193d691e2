// Tar archives for publishing tests, written block by block so a test can say anything a hostile
// client could: any entry type, path or declared size, and archives far larger than memory,
// generated as they are read (never stored). Only for tests.

import { createGzip, gzipSync } from 'node:zlib';

export interface TarEntry {
  name: string;
  /** Default '0' (regular file). '2' symlink, '1' hard link, '6' FIFO, '3' char device, '5' folder. */
  type?: string;
  body?: string | Buffer;
  /** The size the header declares (default the body's). */
  size?: number;
  linkname?: string;
}

const octal = (value: number, width: number) => `${value.toString(8).padStart(width - 1, '0')}\0`;

/** One ustar header block. */
export function tarHeader(entry: TarEntry): Buffer {
  const block = Buffer.alloc(512);
  const size = entry.size ?? Buffer.byteLength(entry.body ?? '');
  block.write(entry.name, 0, 100, 'utf8');
  block.write(octal(entry.type === '5' ? 0o755 : 0o644, 8), 100, 'ascii');
  block.write(octal(0, 8), 108, 'ascii');
  block.write(octal(0, 8), 116, 'ascii');
  // Sizes past 8 GiB would need base-256; tests stay under.
  block.write(octal(size, 12), 124, 'ascii');
  block.write(octal(0, 12), 136, 'ascii');
  block.write('        ', 148, 'ascii');
  block.write(entry.type ?? '0', 156, 'ascii');
  if (entry.linkname) block.write(entry.linkname, 157, 100, 'utf8');
  block.write('ustar\u000000', 257, 'binary');
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return block;
}

const padding = (size: number) => Buffer.alloc((512 - (size % 512)) % 512);

/** An uncompressed tar of the entries (each body written as given, whatever the header declares). */
export function tar(entries: TarEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    const body = Buffer.from(entry.body ?? '');
    parts.push(tarHeader(entry), body, padding(body.length));
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

export const tarGz = (entries: TarEntry[]): Buffer => gzipSync(tar(entries));

/** The files of a small valid integration named `name` of `organization`. */
export function integrationFiles(name: string, organization = 'acme', greeting = 'hello'): TarEntry[] {
  return [
    {
      name: 'platform-manifest.yaml',
      body:
        `name: ${name}\ntitle: ${name}\ndescription: published in a test\norganization: ${organization}\n` +
        'visibility: public\nscopes: []\nscript: src/index.ts\n',
    },
    {
      name: 'src/index.ts',
      body:
        "import { createIntegration } from 'sandbox-api';\n" +
        'export default createIntegration({ fetch: () => ' +
        `Response.json({ greeting: ${JSON.stringify(greeting)} }) });\n`,
    },
  ];
}

/**
 * A gzipped tar made as it is read: `files` regular files of `fileBytes` zeros each. Nothing is
 * kept; 64 files of 16 MiB is a 1 GiB archive that gzips to about a megabyte.
 */
export function zerosArchive(files: number, fileBytes: number): ReadableStream<Uint8Array> {
  const gzip = createGzip({ level: 1 });
  const chunk = Buffer.alloc(1024 * 1024);
  let index = 0;
  let written = 0;
  let cancelled = false;
  const produce = async () => {
    const write = (buffer: Buffer) =>
      gzip.write(buffer) ? Promise.resolve() : new Promise<void>((resolve) => gzip.once('drain', () => resolve()));
    while (!cancelled && index < files) {
      if (written === 0) await write(tarHeader({ name: `zeros/${index}.bin`, size: fileBytes }));
      const step = Math.min(chunk.length, fileBytes - written);
      await write(chunk.subarray(0, step));
      written += step;
      if (written === fileBytes) {
        await write(padding(fileBytes));
        index++;
        written = 0;
      }
    }
    if (!cancelled) {
      gzip.end(Buffer.alloc(1024));
    }
  };
  void produce();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = gzip.read() as Buffer | null;
      if (next !== null) return controller.enqueue(new Uint8Array(next));
      if (gzip.readableEnded) return controller.close();
      await new Promise<void>((resolve) => {
        const settle = () => {
          gzip.off('readable', settle);
          gzip.off('end', settle);
          resolve();
        };
        gzip.once('readable', settle);
        gzip.once('end', settle);
      });
      const after = gzip.read() as Buffer | null;
      if (after !== null) controller.enqueue(new Uint8Array(after));
      else if (gzip.readableEnded || gzip.destroyed) controller.close();
    },
    cancel() {
      cancelled = true;
      gzip.destroy();
    },
  });
}

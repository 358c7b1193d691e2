// The upload reader refuses every hostile archive before anything is written, naming the entry
// and the rule: links, FIFOs and devices, paths leaving the folder, duplicates, and sizes over the
// limits counted while inflating (a bomb stops at the limit instead of being inflated whole).
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { HostError } from '../../../host/common/errors.ts';
import { contentHash, packArchive } from '../../../host/publish/archive-files.ts';
import { readArchive } from '../../../host/publish/archive-read.ts';
import { PUBLISH_LIMITS } from '../../../host/publish/limits.ts';
import { integrationFiles, tar, tarGz, zerosArchive, type TarEntry } from '../../helpers/archives.ts';

const small = { ...PUBLISH_LIMITS, maxArchiveBytes: 64 * 1024, maxUnpackedBytes: 256 * 1024, maxFileBytes: 32 * 1024 };

async function refusal(body: Buffer | Readable, limits = PUBLISH_LIMITS): Promise<HostError> {
  const error = await readArchive(Buffer.isBuffer(body) ? Readable.from([body]) : (body as Readable), limits).then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(HostError);
  return error as HostError;
}

const withEntry = (entry: TarEntry) => tarGz([...integrationFiles('greeter'), entry]);

describe('reading an uploaded archive', () => {
  it('gives back every regular file with its path, folders implied', async () => {
    const files = await readArchive(Readable.from([tarGz([{ name: 'src/', type: '5' }, ...integrationFiles('g')])]));
    expect(files.map((file) => file.path)).toEqual(['platform-manifest.yaml', 'src/index.ts']);
    expect(files[1].bytes.toString()).toContain('createIntegration');
  });

  it('reads what packArchive writes, and the content hash ignores order', async () => {
    const files = [
      { path: 'b.txt', bytes: Buffer.from('b') },
      { path: 'a/c.txt', bytes: Buffer.from('c') },
    ];
    const read = await readArchive(Readable.from([await packArchive(files)]));
    expect(read.map((file) => file.path)).toEqual(['a/c.txt', 'b.txt']);
    expect(contentHash(read)).toBe(contentHash(files));
    expect(contentHash([{ path: 'b.txt', bytes: Buffer.from('B') }, files[1]])).not.toBe(contentHash(files));
  });

  it.each([
    ['2', 'a symbolic link', { linkname: '/etc/passwd' }],
    ['1', 'a hard link', { linkname: 'platform-manifest.yaml' }],
    ['6', 'a FIFO', {}],
    ['3', 'a character device', {}],
    ['4', 'a block device', {}],
  ])('refuses an entry of type %s as %s', async (type, kind, extra) => {
    const error = await refusal(withEntry({ name: 'src/odd', type, ...extra }));
    expect(error.code).toBe('ERR_ARCHIVE_INVALID');
    expect(error.message).toContain(`"src/odd" is ${kind}; only regular files and folders may be published`);
  });

  it.each([
    ['../evil.ts', 'has a ".." segment'],
    ['src/../../evil.ts', 'has a ".." segment'],
    ['/etc/cron.d/evil', 'has an absolute path'],
    ['C:/evil', 'has an absolute path'],
    ['src\\..\\evil', 'has a backslash'],
    ['src/a\u0001b', 'has a NUL or control character'],
    ['src//a.ts', 'has an empty or "." segment'],
    ['src/./a.ts', 'has an empty or "." segment'],
  ])('refuses the path %j: it %s', async (name, why) => {
    const error = await refusal(withEntry({ name, body: 'x' }));
    expect(error.code).toBe('ERR_ARCHIVE_INVALID');
    expect(error.message).toContain(why);
    expect(error.message).toContain('nothing was stored');
  });

  it('refuses a path appearing twice, and a file standing where a folder must be', async () => {
    expect((await refusal(withEntry({ name: 'src/index.ts', body: 'again' }))).message).toContain(
      '"src/index.ts" appears twice',
    );
    expect((await refusal(withEntry({ name: 'src/index.ts/x', body: 'x' }))).message).toContain(
      '"src/index.ts/x" lies under "src/index.ts", which is a file',
    );
  });

  it('refuses a file whose header declares more than a file may have, before reading it', async () => {
    const header = tar([{ name: 'huge.bin', size: 1024 ** 3 }]).subarray(0, 512);
    const error = await refusal(gzipSync(header));
    expect(error.code).toBe('ERR_ARCHIVE_TOO_LARGE');
    expect(error.message).toContain('"huge.bin" is 1073741824 bytes, over the 16 MiB a file may have');
  });

  it('stops inflating at the unpacked limit: 1 GiB of zeros in files each under the file limit', async () => {
    const started = performance.now();
    const body = Readable.fromWeb(zerosArchive(64, 16 * 1024 * 1024) as never);
    const error = await refusal(body);
    expect(error.code).toBe('ERR_ARCHIVE_TOO_LARGE');
    expect(error.message).toContain('the archive inflates to more than 64 MiB');
    // Inflating the whole GiB would take many seconds; stopping at 64 MiB takes well under that.
    expect(performance.now() - started).toBeLessThan(15_000);
  });

  it('refuses a body over the upload limit, and too many entries', async () => {
    const noise = Buffer.from(Array.from({ length: 100 * 1024 }, (_, i) => (i * 7919) % 251));
    expect((await refusal(Buffer.concat([tarGz(integrationFiles('g')), noise]), small)).message).toContain(
      'the upload is over 64 KiB',
    );
    const many = Array.from({ length: 12 }, (_, i) => ({ name: `f${i}.txt`, body: 'x' }));
    const error = await refusal(tarGz(many), { ...small, maxEntries: 10 });
    expect(error.code).toBe('ERR_ARCHIVE_TOO_LARGE');
    expect(error.message).toContain('more than 10 entries');
  });

  it('gives up on an upload that does not arrive in time', async () => {
    const trickle = new Readable({ read() {} });
    trickle.push(tarGz(integrationFiles('g')).subarray(0, 10));
    const error = await refusal(trickle, { ...PUBLISH_LIMITS, maxReadMs: 200 });
    expect(error.code).toBe('ERR_REQUEST_TIMEOUT');
    expect(error.message).toContain('did not arrive within 0.2 s; nothing was stored');
  });

  it('refuses what is not a gzipped tar', async () => {
    const error = await refusal(Buffer.from('PK\u0003\u0004 a zip file'));
    expect(error.code).toBe('ERR_ARCHIVE_INVALID');
    expect(error.message).toContain('is not a gzipped tar archive');
  });
});

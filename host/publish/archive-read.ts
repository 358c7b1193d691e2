// Reads an uploaded integration (a gzipped tar) into memory while refusing what must never be
// written: entries other than regular files and folders, hostile paths, duplicates, and anything
// over the limits, counted as it streams (a bomb stops at the limit). Writes nothing to disk.

import { once } from 'node:events';
import { PassThrough, pipeline, Readable, Transform } from 'node:stream';
import { createGunzip } from 'node:zlib';
import tar from 'tar-stream';
import { HostError } from '../common/errors.ts';
import { entryPath } from './entry-path.ts';
import { describeBytes, PUBLISH_LIMITS, type PublishLimits } from './limits.ts';

export interface ArchiveFile {
  /** Relative to the integration folder, `/`-separated (entry-path.ts). */
  path: string;
  bytes: Buffer;
}

const AFTER = '; nothing was stored';

/** A pass-through that fails with `error()` once more than `limit` bytes went through. */
function limited(limit: number, error: () => HostError): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      if (seen > limit) done(error());
      else done(null, chunk);
    },
  });
}

/** What a tar-stream failure or a gzip failure means to the person who sent the archive. */
function asArchiveError(error: unknown): HostError {
  if (error instanceof HostError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new HostError(
    'ERR_ARCHIVE_INVALID',
    `the upload is not a gzipped tar archive (${message.split('\n')[0]})${AFTER}; ` +
      'publish a folder with `integration-host publish`',
  );
}

const KIND_NAMES = new Map([
  ['symlink', 'a symbolic link'],
  ['link', 'a hard link'],
  ['fifo', 'a FIFO'],
  ['character-device', 'a character device'],
  ['block-device', 'a block device'],
  ['contiguous-file', 'a contiguous file'],
]);

/**
 * Every file of the archive, in archive order. Throws HostError: ERR_ARCHIVE_TOO_LARGE (413) over
 * a size or count limit, ERR_ARCHIVE_INVALID (400) for anything else, each naming the entry, the
 * rule and what to do. Stops reading `body` at the first refusal but never destroys it: a request
 * body is left to the server, which drains it so that the refusal reaches the client.
 */
export async function readArchive(
  body: AsyncIterable<Uint8Array> | Readable,
  limits: PublishLimits = PUBLISH_LIMITS,
): Promise<ArchiveFile[]> {
  const source = new PassThrough();
  const input = body instanceof Readable ? body : Readable.from(body);
  input.pipe(source);
  const tooLarge = (what: string) => () =>
    new HostError('ERR_ARCHIVE_TOO_LARGE', `${what}${AFTER}; make the integration smaller`);
  const inflated = pipeline(
    source,
    limited(limits.maxArchiveBytes, tooLarge(`the upload is over ${describeBytes(limits.maxArchiveBytes)}`)),
    createGunzip(),
    limited(
      limits.maxUnpackedBytes,
      tooLarge(`the archive inflates to more than ${describeBytes(limits.maxUnpackedBytes)}`),
    ),
    () => {},
  );
  const extract = tar.extract();
  // The first failure is the one worth reporting: stopping the other side makes it fail too.
  let first: unknown = null;
  const fail = (error: unknown) => {
    first ??= error;
    input.unpipe(source);
    inflated.destroy();
    extract.destroy(error instanceof Error ? error : new Error(String(error)));
  };
  const slow = setTimeout(
    () =>
      fail(
        new HostError(
          'ERR_REQUEST_TIMEOUT',
          `the upload did not arrive within ${limits.maxReadMs / 1000} s${AFTER}; send it again`,
        ),
      ),
    limits.maxReadMs,
  );
  const feeding = (async () => {
    try {
      for await (const chunk of inflated) if (!extract.write(chunk)) await once(extract, 'drain');
      extract.end(undefined);
    } catch (error) {
      fail(error);
    }
  })();
  try {
    const files = await collect(extract, limits);
    await feeding;
    if (first !== null) throw first;
    return files;
  } catch (error) {
    fail(error);
    await feeding;
    throw asArchiveError(first);
  } finally {
    clearTimeout(slow);
  }
}

async function collect(extract: tar.Extract, limits: PublishLimits): Promise<ArchiveFile[]> {
  const files: ArchiveFile[] = [];
  const seen = new Set<string>();
  let entries = 0;
  for await (const entry of extract) {
    const { header } = entry;
    const shown = JSON.stringify(header.name);
    if (++entries > limits.maxEntries)
      throw new HostError('ERR_ARCHIVE_TOO_LARGE', `the archive has more than ${limits.maxEntries} entries${AFTER}`);
    if (header.type !== 'file' && header.type !== 'directory') {
      const kind = KIND_NAMES.get(header.type ?? '') ?? `of type ${JSON.stringify(header.type)}`;
      throw new HostError(
        'ERR_ARCHIVE_INVALID',
        `archive entry ${shown} is ${kind}; only regular files and folders may be published${AFTER}`,
      );
    }
    const path = entryPath(header.name, header.type === 'directory', limits);
    if (path !== null && seen.has(path))
      throw new HostError('ERR_ARCHIVE_INVALID', `archive entry ${shown} appears twice${AFTER}`);
    if (path !== null) seen.add(path);
    if (header.type === 'directory') {
      entry.resume();
      continue;
    }
    if (path === null) throw new HostError('ERR_ARCHIVE_INVALID', `archive entry ${shown} has no name${AFTER}`);
    const size = header.size ?? 0;
    if (size > limits.maxFileBytes)
      throw new HostError(
        'ERR_ARCHIVE_TOO_LARGE',
        `archive entry ${shown} is ${size} bytes, ` +
          `over the ${describeBytes(limits.maxFileBytes)} a file may have${AFTER}`,
      );
    const chunks: Buffer[] = [];
    for await (const chunk of entry) chunks.push(chunk as Buffer);
    files.push({ path, bytes: Buffer.concat(chunks) });
  }
  // A file standing where another entry needs a folder (`a` and `a/b`) cannot be written as sent
  // (a file and a folder of the same path already "appear twice").
  const filePaths = new Set(files.map((file) => file.path));
  for (const candidate of [...seen]) {
    const parts = candidate.split('/');
    for (let depth = 1; depth < parts.length; depth++) {
      const parent = parts.slice(0, depth).join('/');
      if (filePaths.has(parent))
        throw new HostError(
          'ERR_ARCHIVE_INVALID',
          `archive entry "${candidate}" lies under "${parent}", which is a file${AFTER}`,
        );
    }
  }
  return files;
}

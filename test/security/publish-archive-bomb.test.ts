// Attack: a 1 GiB archive of zeros that gzips to about a megabyte (generated as it is sent, never
// stored), and a tar header declaring a 1 GiB file. The host stops inflating at its limit, answers
// 413 naming it, stores nothing, writes nothing, and keeps serving; its memory does not follow.
import { describe, expect, it } from 'vitest';
import { gzipSync } from 'node:zlib';
import { tar, zerosArchive } from '../helpers/archives.ts';
import type { TestHost } from '../helpers/host.ts';
import { storedVersions, uploadTo, withPublishingHost } from '../helpers/publishing.ts';

let host: TestHost;
let token: string;
withPublishingHost((started, issued) => ((host = started), (token = issued)));

describe('an archive bomb', () => {
  it('of 1 GiB of zeros in files each under the file limit is refused at the unpacked limit', async () => {
    const rssBefore = process.memoryUsage().rss;
    const started = performance.now();
    const { status, body } = await uploadTo(host, 'bomb', token, zerosArchive(64, 16 * 1024 * 1024));
    const ms = performance.now() - started;
    expect(status).toBe(413);
    expect(body.error?.code).toBe('ERR_ARCHIVE_TOO_LARGE');
    expect(body.error?.message).toContain('the archive inflates to more than 64 MiB; nothing was stored');
    expect(await storedVersions(host, 'bomb')).toEqual([]);
    // Inflating the whole GiB would take far longer, and hold it: the host stopped at its limit.
    expect(ms).toBeLessThan(20_000);
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(512 * 1024 * 1024);
    expect((await fetch(`${host.url}/health`)).status).toBe(200);
  });

  it('declaring a 1 GiB file is refused at its header, before its content is read', async () => {
    const header = tar([{ name: 'huge.bin', size: 1024 ** 3 }]).subarray(0, 512);
    const { status, body } = await uploadTo(host, 'bomb', token, new Uint8Array(gzipSync(header)));
    expect(status).toBe(413);
    expect(body.error?.message).toContain('"huge.bin" is 1073741824 bytes, over the 16 MiB a file may have');
    expect(await storedVersions(host, 'bomb')).toEqual([]);
  });
});

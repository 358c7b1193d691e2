// Attack: an upload holding a FIFO or a device (a package.json that is a FIFO would leave the
// bundler waiting forever, a device would never end). Refused before anything is written, naming
// the entry; nothing is stored, and the host goes on answering.
import { describe, expect, it } from 'vitest';
import { integrationFiles, tarGz } from '../helpers/archives.ts';
import type { TestHost } from '../helpers/host.ts';
import { storedVersions, uploadTo, withPublishingHost } from '../helpers/publishing.ts';

let host: TestHost;
let token: string;
withPublishingHost((started, issued) => ((host = started), (token = issued)));

describe('an upload with a special file', () => {
  it.each([
    ['6', 'package.json', 'a FIFO'],
    ['3', 'src/zero', 'a character device'],
    ['4', 'assets/disk', 'a block device'],
  ])('of type %s at %s is refused as %s, and stores nothing', async (type, name, kind) => {
    const archive = tarGz([...integrationFiles('fifo'), { name, type }]);
    const { status, body } = await uploadTo(host, 'fifo', token, new Uint8Array(archive));
    expect(status).toBe(400);
    expect(body.error?.code).toBe('ERR_ARCHIVE_INVALID');
    expect(body.error?.message).toContain(`"${name}" is ${kind}`);
    expect(await storedVersions(host, 'fifo')).toEqual([]);
    expect((await fetch(`${host.url}/health`)).status).toBe(200);
  });
});

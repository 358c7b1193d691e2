// Attack: an upload holding a symbolic link (to /etc/passwd, or to the host's own store) or a hard
// link, so that a file the integration reads or the host serves as an asset is one of the host's.
// Refused before anything is written, naming the entry; nothing is stored.
import { describe, expect, it } from 'vitest';
import { integrationFiles, tarGz } from '../helpers/archives.ts';
import type { TestHost } from '../helpers/host.ts';
import { storedVersions, uploadTo, withPublishingHost } from '../helpers/publishing.ts';

let host: TestHost;
let token: string;
withPublishingHost((started, issued) => ((host = started), (token = issued)));

describe('an upload with a link', () => {
  it.each([
    ['2', 'assets/passwd', '/etc/passwd', 'a symbolic link'],
    ['2', 'src/store.ts', '../../../.data/host.db', 'a symbolic link'],
    ['1', 'assets/copy', 'platform-manifest.yaml', 'a hard link'],
  ])('of type %s at %s is refused as %s, and stores nothing', async (type, name, linkname, kind) => {
    const archive = tarGz([...integrationFiles('linker'), { name, type, linkname }]);
    const { status, body } = await uploadTo(host, 'linker', token, new Uint8Array(archive));
    expect(status).toBe(400);
    expect(body.error?.code).toBe('ERR_ARCHIVE_INVALID');
    expect(body.error?.message).toContain(`"${name}" is ${kind}; only regular files and folders may be published`);
    expect(await storedVersions(host, 'linker')).toEqual([]);
  });
});

// Attack: an upload whose entries climb out of the integration folder (`../`, an absolute path,
// a Windows `..\`), to write over host files when extracted. Refused before anything is written,
// naming the entry; nothing is stored and no file appears outside.
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { integrationFiles, tarGz } from '../helpers/archives.ts';
import type { TestHost } from '../helpers/host.ts';
import { storedVersions, uploadTo, withPublishingHost } from '../helpers/publishing.ts';

let host: TestHost;
let token: string;
withPublishingHost((started, issued) => ((host = started), (token = issued)));

describe('a zip-slip upload', () => {
  const target = `zip-slip-${process.pid}.txt`;
  it.each([
    [`../../../../../../${tmpdir()}/${target}`, 'has a ".." segment, which would leave the folder'],
    [`${tmpdir()}/${target}`, 'has an absolute path'],
    [`src\\..\\..\\${target}`, 'has a backslash in its path'],
  ])('is refused for the entry %j, naming why, and stores nothing', async (name, why) => {
    const archive = tarGz([...integrationFiles('slipper'), { name, body: 'owned' }]);
    const { status, body } = await uploadTo(host, 'slipper', token, new Uint8Array(archive));
    expect(status).toBe(400);
    expect(body.error?.code).toBe('ERR_ARCHIVE_INVALID');
    expect(body.error?.message).toContain(why);
    expect(body.error?.message).toContain('nothing was stored');
    expect(await storedVersions(host, 'slipper')).toEqual([]);
    expect(existsSync(path.join(tmpdir(), target))).toBe(false);
  });
});

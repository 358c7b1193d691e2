import { afterAll, describe, expect, it } from 'vitest';
import { mkdirSync, realpathSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { checkLocalFile, checkManifestPaths, isInside } from '../../../host/manifest/paths.ts';
import { TempDirs } from './temp-integration.ts';

const temp = new TempDirs();
afterAll(() => temp.cleanup());

function integrationWithOutsideFile(): { dir: string; outside: string } {
  const root = realpathSync(temp.make({ 'secret.txt': 'outside', 'app/icon.png': 'png', 'app/src/index.ts': '' }));
  return { dir: path.join(root, 'app'), outside: path.join(root, 'secret.txt') };
}

describe('checkLocalFile', () => {
  it('accepts a regular file inside the folder, also through an inner symlink or a harmless ".."', async () => {
    const { dir } = integrationWithOutsideFile();
    symlinkSync('icon.png', path.join(dir, 'alias.png'));
    expect(await checkLocalFile(dir, 'icon.png', '/icon')).toBeNull();
    expect(await checkLocalFile(dir, 'alias.png', '/icon')).toBeNull();
    expect(await checkLocalFile(dir, 'src/../icon.png', '/icon')).toBeNull();
  });

  it('refuses a symlink whose target is outside the folder', async () => {
    const { dir, outside } = integrationWithOutsideFile();
    symlinkSync(outside, path.join(dir, 'escape.png'));
    expect(await checkLocalFile(dir, 'escape.png', '/previewImages/0')).toEqual({
      pointer: '/previewImages/0',
      message: '"escape.png" resolves outside the integration folder (through a symlink)',
    });
  });

  it('refuses a symlinked folder that leads outside', async () => {
    const { dir } = integrationWithOutsideFile();
    symlinkSync('..', path.join(dir, 'up'));
    expect((await checkLocalFile(dir, 'up/secret.txt', '/icon'))?.message).toContain('resolves outside');
  });

  it.each([
    ['../secret.txt', '"../secret.txt" leaves the integration folder'],
    ['src/../../secret.txt', '"src/../../secret.txt" leaves the integration folder'],
    ['..\\secret.txt', '"..\\secret.txt" leaves the integration folder'],
    ['/etc/passwd', 'must be a path relative to the integration folder (got absolute "/etc/passwd")'],
    ['C:\\x.png', 'must be a path relative to the integration folder (got absolute "C:\\x.png")'],
    ['src', '"src" is not a regular file'],
    ['nope.png', '"nope.png" does not exist in the integration folder'],
  ])('refuses %s', async (rel, message) => {
    const { dir } = integrationWithOutsideFile();
    expect(await checkLocalFile(dir, rel, '/icon')).toEqual({ pointer: '/icon', message });
  });

  it('checks the script extension', async () => {
    const { dir } = integrationWithOutsideFile();
    expect((await checkLocalFile(dir, 'icon.png', '/script', ['.ts', '.js']))?.message).toBe(
      '"icon.png" must be a .ts or .js file',
    );
  });
});

describe('checkManifestPaths', () => {
  it('reports script, icon and each preview image at its own pointer', async () => {
    const { dir } = integrationWithOutsideFile();
    mkdirSync(path.join(dir, 'shots'));
    const issues = await checkManifestPaths(dir, {
      script: 'main.ts',
      icon: 'icon.png',
      previewImages: ['icon.png', 'shots', '../secret.txt'],
    });
    expect(issues.map((i) => i.pointer)).toEqual(['/script', '/previewImages/1', '/previewImages/2']);
  });
});

describe('isInside', () => {
  it('tells a child from a sibling sharing a prefix', () => {
    expect(isInside('/a/b', '/a/b')).toBe(true);
    expect(isInside('/a/b', '/a/b/c')).toBe(true);
    expect(isInside('/a/b', '/a/bc')).toBe(false);
    expect(isInside('/a/b', '/a')).toBe(false);
    expect(isInside('/a/b', '/a/b/..foo')).toBe(true);
  });
});

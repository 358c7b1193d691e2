// The line the build appends to each code file so esbuild follows no source map comment: the
// file's meaning and positions stay its own (errors at its end, look-alikes inside strings).
import { afterAll, describe, expect, it } from 'vitest';
import vm from 'node:vm';
import { bundleScript } from '../../../host/manifest/bundle.ts';
import { positionInFile, withInputSourceMapIgnored } from '../../../host/manifest/source-map-comment.ts';
import { HostError } from '../../../host/common/errors.ts';
import { TempDirs } from './temp-integration.ts';
import { PROVIDED_MODULES } from '../../../sandbox-api/runtime/provided.ts';

const temp = new TempDirs();
afterAll(() => temp.cleanup());

describe('the appended source map comment', () => {
  it('starts on a line of its own, so a comment the file ends in cannot swallow it', () => {
    const handed = withInputSourceMapIgnored(Buffer.from('//# sourceMappingURL=/tmp/x.map?')).toString();
    expect(handed.split('\n')).toEqual([
      '//# sourceMappingURL=/tmp/x.map?',
      expect.stringMatching(/^\/\/# sourceMappingURL=ih-not-followed:/),
    ]);
  });

  it('puts an error position in the appended line back at the end of the file as read', () => {
    const file = Buffer.from('export de');
    expect(positionInFile(file, 2, 5)).toEqual({ line: 1, column: 9 });
    expect(positionInFile(file, 1, 3)).toEqual({ line: 1, column: 3 });
    expect(positionInFile(Buffer.from('a\nbé\n'), 3, 0)).toEqual({ line: 3, column: 0 });
    expect(positionInFile(Buffer.from('a\nbé'), 3, 0)).toEqual({ line: 2, column: 3 });
  });

  it('reports a syntax error at the end of a file with no final newline where the file ends', async () => {
    const error = await bundleScript(temp.make({ 'index.ts': 'export default {' }), 'index.ts', {
      cacheDir: temp.make(),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HostError);
    expect((error as HostError).message).toMatch(/^index\.ts:1:17: /);
  });

  it('leaves a look-alike inside a string as the program wrote it', async () => {
    const source =
      'export const text = `\n//# sourceMappingURL=/dev/zero\n`;\nexport default { fetch() { return text; } };';
    const { code } = await bundleScript(temp.make({ 'index.ts': source }), 'index.ts', { cacheDir: temp.make() });
    const namespace = vm.runInNewContext(code, {})(PROVIDED_MODULES) as { text: string };
    expect(namespace.text).toBe('\n//# sourceMappingURL=/dev/zero\n');
  });
});

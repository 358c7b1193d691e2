import { describe, expect, it } from 'vitest';
import { importFlags } from '../../../host/common/import-flags.ts';

describe('importFlags', () => {
  it('keeps every --import module, in order, in both spellings', () => {
    expect(
      importFlags([
        '--no-node-snapshot',
        '--import',
        'file:///a/hook.js',
        '--max-old-space-size=64',
        '--import=file:///b.js',
      ]),
    ).toEqual(['--import', 'file:///a/hook.js', '--import', 'file:///b.js']);
  });

  it('inherits nothing else, and nothing from a dangling --import', () => {
    expect(importFlags(['--no-node-snapshot', '--inspect', '--require', 'x.cjs'])).toEqual([]);
    expect(importFlags(['--import'])).toEqual([]);
  });
});

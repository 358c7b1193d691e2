import { describe, expect, it } from 'vitest';
import { displayPath, formatProblem } from '../../../host/manifest/format.ts';

describe('formatProblem', () => {
  it('prints file, pointer and message', () => {
    expect(formatProblem({ file: 'f/platform-manifest.yaml', pointer: '/scopes/2', message: 'bad' })).toBe(
      'f/platform-manifest.yaml: /scopes/2: bad',
    );
  });

  it('prints the whole-document pointer as "/"', () => {
    expect(formatProblem({ file: 'm.yaml', pointer: '', message: 'invalid YAML' })).toBe('m.yaml: /: invalid YAML');
  });
});

describe('displayPath', () => {
  it('is relative below the cwd and absolute elsewhere', () => {
    expect(displayPath('/repo/fixtures/a/platform-manifest.yaml', '/repo')).toBe('fixtures/a/platform-manifest.yaml');
    expect(displayPath('/elsewhere/a.yaml', '/repo')).toBe('/elsewhere/a.yaml');
    expect(displayPath('/repo/..a/b.yaml', '/repo')).toBe('..a/b.yaml');
  });
});

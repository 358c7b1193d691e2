// The dev loop says what a reload of the same code changed, in words, and never a secret's value.
import { describe, expect, it } from 'vitest';
import { describeDifference } from '../../../host/assembly/reload.ts';
import type { LoadedIntegration, Manifest } from '../../../host/manifest/types.ts';

const base: LoadedIntegration = {
  name: 'greeter',
  dir: '/x',
  manifestPath: '/x/platform-manifest.yaml',
  status: 'ready',
  secrets: { TOKEN: 'one' },
  errors: [],
  warnings: [],
  manifest: {
    name: 'greeter',
    title: 'Greeter',
    description: 'Greets.',
    organization: 'acme',
    visibility: 'public',
    scopes: [],
  } as Manifest,
};

describe('describeDifference', () => {
  it('names the manifest keys, secret values and warnings that changed', () => {
    const next: LoadedIntegration = {
      ...base,
      secrets: { TOKEN: 'two' },
      manifest: { ...base.manifest!, summary: 'New.', scopes: ['space:content:read'] },
      warnings: [{ file: 'f', pointer: '/x', message: 'unknown key "x" (ignored)' }],
    };
    const said = describeDifference(base, next);
    expect(said).toEqual(['manifest scopes, summary', 'secret values', 'warnings']);
    expect(said.join(' ')).not.toMatch(/one|two/);
  });

  it('says nothing when nothing differs', () => {
    expect(describeDifference(base, { ...base })).toEqual([]);
  });
});

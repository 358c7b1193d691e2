import { describe, expect, it } from 'vitest';
import { resolveSecrets } from '../../../host/manifest/secrets.ts';
import { envPrefixOf, ownerOf } from '../../../host/manifest/secret-namespace.ts';

describe('resolveSecrets', () => {
  it('fills templates from the environment, tolerating whitespace inside the braces', () => {
    const result = resolveSecrets({ A: '${{env.DEMO_ONE}}', B: '${{   env.DEMO_TWO   }}' }, { DEMO_ONE: '1', DEMO_TWO: '2' }, 'demo');
    expect(result).toEqual({ values: { A: '1', B: '2' }, variables: { A: 'DEMO_ONE', B: 'DEMO_TWO' }, errors: [], warnings: [] });
  });

  it('reports a missing environment variable naming the secret and the variable', () => {
    const result = resolveSecrets({ CLIENT_ID: '${{ env.OAUTH_DEMO_CLIENT_ID }}' }, {}, 'oauth-demo');
    expect(result.errors).toEqual([{
      pointer: '/secrets/CLIENT_ID',
      message: 'secret "CLIENT_ID" needs environment variable OAUTH_DEMO_CLIENT_ID, which is not set',
    }]);
    expect(result.values).toEqual({});
  });

  it('treats an empty variable as an error', () => {
    expect(resolveSecrets({ K: '${{ env.DEMO_EMPTY }}' }, { DEMO_EMPTY: '' }, 'demo').errors[0].message).toContain('which is empty');
  });

  it('does not read inherited properties of the env object', () => {
    expect(resolveSecrets({ K: '${{ env.toString }}' }, {}, 'demo').errors).toHaveLength(1);
  });

  it('uses a literal value as is, with a warning that does not contain it', () => {
    const result = resolveSecrets({ TOKEN: 'literal-token-value' }, {}, 'demo');
    expect(result.values).toEqual({ TOKEN: 'literal-token-value' });
    expect(result.warnings).toHaveLength(1);
    expect(result.warnings[0].pointer).toBe('/secrets/TOKEN');
    expect(result.warnings[0].message).toContain('should come from the environment');
    expect(result.warnings[0].message).not.toContain('literal-token-value');
  });

  it('refuses a malformed template instead of shipping it as the secret', () => {
    const result = resolveSecrets({ A: '${{ env.DEMO_X }}-suffix', B: '${{ secrets.Y }}' }, { DEMO_X: 'x' }, 'demo');
    expect(result.values).toEqual({});
    expect(result.errors.map((e) => e.pointer)).toEqual(['/secrets/A', '/secrets/B']);
  });
});

describe('the secrets namespace', () => {
  const env = { HOST_ADMIN_TOKEN: 'admin', OAUTH_DEMO_CLIENT_SECRET: 'theirs', AWS_SECRET_ACCESS_KEY: 'cloud', DEMO_: 'bare' };

  it.each([
    ['HOST_ADMIN_TOKEN', /HOST_ADMIN_TOKEN is one of the host's own variables/],
    ['OAUTH_DEMO_CLIENT_SECRET', /may only read variables named DEMO_…, not OAUTH_DEMO_CLIENT_SECRET/],
    ['AWS_SECRET_ACCESS_KEY', /may only read variables named DEMO_…/],
    ['DEMO_', /may only read variables named DEMO_…, not DEMO_$/],
  ])('refuses %s outside the integration\'s own prefix, without reading it', (variable, message) => {
    const result = resolveSecrets({ STOLEN: `\${{ env.${variable} }}` }, env, 'demo');
    expect(result.values).toEqual({});
    expect(result.errors[0].message).toMatch(message);
    expect(JSON.stringify(result)).not.toMatch(/admin|theirs|cloud|bare/);
  });

  it.each([
    ['host', 'HOST_ADMIN_TOKEN'],
    ['host', 'HOST_ANYTHING'],
    ['host-admin', 'HOST_ADMIN_TOKEN'],
    ['host-admin', 'HOST_ADMIN_TOKEN_2'],
    ['host-x', 'HOST_X_KEY'],
  ])('refuses HOST_… to an integration named %s, whose own prefix collides with it (%s)', (name, variable) => {
    const result = resolveSecrets({ STOLEN: `\${{ env.${variable} }}` }, { [variable]: 'host-value' }, name);
    expect(result.values).toEqual({});
    expect(result.errors).toEqual([{ pointer: '/secrets/STOLEN', message: `secret "STOLEN" cannot read ${variable}: ${variable} is one of the host's own variables` }]);
  });

  it('derives the prefix from the name', () => {
    expect(envPrefixOf('oauth-demo')).toBe('OAUTH_DEMO_');
  });

  it('gives a variable to the loaded integration with the longest matching prefix', () => {
    expect(ownerOf('OAUTH_DEMO_CLIENT_SECRET', ['oauth', 'oauth-demo'])).toBe('oauth-demo');
    expect(ownerOf('OAUTH_TOKEN', ['oauth', 'oauth-demo'])).toBe('oauth');
    expect(ownerOf('OTHER_TOKEN', ['oauth'])).toBeUndefined();
  });
});

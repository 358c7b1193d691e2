import { describe, expect, it } from 'vitest';
import { resolveSecrets, type StoredSecretValue } from '../../../host/manifest/secrets.ts';
import { envPrefixOf, ownerOf } from '../../../host/manifest/secret-namespace.ts';

describe('resolveSecrets', () => {
  it('fills templates from the environment, tolerating whitespace inside the braces', () => {
    const result = resolveSecrets(
      { A: '${{env.DEMO_ONE}}', B: '${{   env.DEMO_TWO   }}' },
      { DEMO_ONE: '1', DEMO_TWO: '2' },
      'demo',
    );
    expect(result).toEqual({
      values: { A: '1', B: '2' },
      variables: { A: 'DEMO_ONE', B: 'DEMO_TWO' },
      sources: {
        A: { variable: 'DEMO_ONE', source: 'environment' },
        B: { variable: 'DEMO_TWO', source: 'environment' },
      },
      errors: [],
      warnings: [],
    });
  });

  it('reports a missing environment variable naming the secret, the variable and the command that stores it', () => {
    const result = resolveSecrets({ CLIENT_ID: '${{ env.OAUTH_DEMO_CLIENT_ID }}' }, {}, 'oauth-demo');
    expect(result.errors).toEqual([
      {
        pointer: '/secrets/CLIENT_ID',
        message:
          'secret "CLIENT_ID" needs environment variable OAUTH_DEMO_CLIENT_ID, which is not set (or store it: npm ' +
          'run secrets -- set oauth-demo OAUTH_DEMO_CLIENT_ID)',
      },
    ]);
    expect(result.values).toEqual({});
  });

  it('treats an empty variable as an error', () => {
    expect(resolveSecrets({ K: '${{ env.DEMO_EMPTY }}' }, { DEMO_EMPTY: '' }, 'demo').errors[0].message).toContain(
      'which is empty',
    );
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

describe('secrets stored for the integration', () => {
  const stored = (entries: Record<string, StoredSecretValue>) => new Map(Object.entries(entries));

  it('take precedence over the environment, inside the namespace too', () => {
    const result = resolveSecrets(
      { ID: '${{ env.DEMO_ID }}', KEY: '${{ env.DEMO_KEY }}' },
      { DEMO_ID: 'from-env', DEMO_KEY: 'env-key' },
      'demo',
      { stored: stored({ DEMO_ID: { value: 'from-store' } }) },
    );
    expect(result.values).toEqual({ ID: 'from-store', KEY: 'env-key' });
    expect(result.sources).toEqual({
      ID: { variable: 'DEMO_ID', source: 'store' },
      KEY: { variable: 'DEMO_KEY', source: 'environment' },
    });
    // A stored variable is never one the environment was read for: no other integration's check applies to it.
    expect(result.variables).toEqual({ KEY: 'DEMO_KEY' });
  });

  it('make a variable outside the namespace acceptable, and the environment is never read for it', () => {
    const env = new Proxy({ GITHUBCOPILOT_APP_ID: 'from-env' } as Record<string, string>, {
      get(target, property) {
        if (property === 'GITHUBCOPILOT_APP_ID') throw new Error('the environment was read');
        return Reflect.get(target, property);
      },
    });
    const result = resolveSecrets({ APP_ID: '${{ env.GITHUBCOPILOT_APP_ID }}' }, env, 'github-copilot', {
      stored: stored({ GITHUBCOPILOT_APP_ID: { value: '123' } }),
    });
    expect(result).toMatchObject({ values: { APP_ID: '123' }, errors: [], warnings: [] });
  });

  it('say how to store a variable outside the namespace: an error where a host loads, a warning for check', () => {
    const secrets = { APP_ID: '${{ env.GITHUBCOPILOT_APP_ID }}' };
    const host = resolveSecrets(secrets, { GITHUBCOPILOT_APP_ID: 'exported' }, 'github-copilot', {
      stored: stored({}),
    });
    expect(host.values).toEqual({});
    expect(host.errors).toEqual([
      {
        pointer: '/secrets/APP_ID',
        message:
          'secret "APP_ID" cannot read GITHUBCOPILOT_APP_ID: an integration named "github-copilot" may only read ' +
          'variables named GITHUB_COPILOT_…, not GITHUBCOPILOT_APP_ID; store it for this integration instead: npm ' +
          'run secrets -- set github-copilot GITHUBCOPILOT_APP_ID (the value is read from stdin)',
      },
    ]);
    const check = resolveSecrets(secrets, {}, 'github-copilot', { unsetIsWarning: true });
    expect(check.errors).toEqual([]);
    expect(check.warnings).toEqual([
      {
        pointer: '/secrets/APP_ID',
        message:
          'secret "APP_ID" reads GITHUBCOPILOT_APP_ID, which a host never takes from its environment (an ' +
          'integration named "github-copilot" may only read variables named GITHUB_COPILOT_…, not ' +
          'GITHUBCOPILOT_APP_ID): store it for this integration with npm run secrets -- set github-copilot ' +
          'GITHUBCOPILOT_APP_ID (the value is read from stdin); the host will refuse to load the integration ' +
          'until it is stored',
      },
    ]);
  });

  it(
    'report a stored value the host cannot decrypt, with its ' + 'reason and without falling back to the environment',
    () => {
      const result = resolveSecrets({ ID: '${{ env.DEMO_ID }}' }, { DEMO_ID: 'from-env' }, 'demo', {
        stored: stored({ DEMO_ID: { problem: 'it was encrypted with key 2, which this host does not have' } }),
      });
      expect(result.values).toEqual({});
      expect(result.errors).toEqual([
        {
          pointer: '/secrets/ID',
          message:
            'secret "ID" reads DEMO_ID from this host\'s secret store, where its value cannot be read: it was ' +
            'encrypted with key 2, which this host does not have',
        },
      ]);
    },
  );

  it('keep a manifest key named __proto__ as an own entry', () => {
    const result = resolveSecrets(JSON.parse('{"__proto__": "${{ env.DEMO_P }}"}'), {}, 'demo', {
      stored: stored({ DEMO_P: { value: 'v' } }),
    });
    expect(Object.hasOwn(result.values, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(result.values)).toBe(Object.prototype);
    expect(JSON.stringify(result.values)).toBe('{"__proto__":"v"}');
  });
});

describe('the secrets namespace', () => {
  const env = {
    HOST_ADMIN_TOKEN: 'admin',
    OAUTH_DEMO_CLIENT_SECRET: 'theirs',
    AWS_SECRET_ACCESS_KEY: 'cloud',
    DEMO_: 'bare',
  };

  it.each([
    ['HOST_ADMIN_TOKEN', /HOST_ADMIN_TOKEN is one of the host's own variables/],
    ['OAUTH_DEMO_CLIENT_SECRET', /may only read variables named DEMO_…, not OAUTH_DEMO_CLIENT_SECRET/],
    ['AWS_SECRET_ACCESS_KEY', /may only read variables named DEMO_…/],
    ['DEMO_', /may only read variables named DEMO_…, not DEMO_; store it/],
  ])("refuses %s outside the integration's own prefix, without reading it", (variable, message) => {
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
    expect(result.errors).toEqual([
      {
        pointer: '/secrets/STOLEN',
        message:
          `secret "STOLEN" cannot read ${variable}: ${variable} is one of the host's own variables; store it for ` +
          `this integration instead: npm run secrets -- set ${name} ${variable} (the value is read from stdin)`,
      },
    ]);
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

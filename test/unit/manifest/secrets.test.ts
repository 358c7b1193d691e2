import { describe, expect, it } from 'vitest';
import { resolveSecrets } from '../../../host/manifest/secrets.ts';

describe('resolveSecrets', () => {
  it('fills templates from the environment, tolerating whitespace inside the braces', () => {
    const result = resolveSecrets({ A: '${{env.ONE}}', B: '${{   env.TWO   }}' }, { ONE: '1', TWO: '2' });
    expect(result).toEqual({ values: { A: '1', B: '2' }, errors: [], warnings: [] });
  });

  it('reports a missing environment variable naming the secret and the variable', () => {
    const result = resolveSecrets({ CLIENT_ID: '${{ env.OAUTH_DEMO_CLIENT_ID }}' }, {});
    expect(result.errors).toEqual([{
      pointer: '/secrets/CLIENT_ID',
      message: 'secret "CLIENT_ID" needs environment variable OAUTH_DEMO_CLIENT_ID, which is not set',
    }]);
    expect(result.values).toEqual({});
  });

  it('treats an empty variable as an error', () => {
    expect(resolveSecrets({ K: '${{ env.EMPTY }}' }, { EMPTY: '' }).errors[0].message).toContain('which is empty');
  });

  it('does not read inherited properties of the env object', () => {
    expect(resolveSecrets({ K: '${{ env.toString }}' }, {}).errors).toHaveLength(1);
  });

  it('uses a literal value as is, with a warning that does not contain it', () => {
    const result = resolveSecrets({ TOKEN: 'literal-token-value' }, {});
    expect(result.values).toEqual({ TOKEN: 'literal-token-value' });
    expect(result.warnings).toHaveLength(1);
    expect(result.warnings[0].pointer).toBe('/secrets/TOKEN');
    expect(result.warnings[0].message).toContain('should come from the environment');
    expect(result.warnings[0].message).not.toContain('literal-token-value');
  });

  it('refuses a malformed template instead of shipping it as the secret', () => {
    const result = resolveSecrets({ A: '${{ env.X }}-suffix', B: '${{ secrets.Y }}' }, { X: 'x' });
    expect(result.values).toEqual({});
    expect(result.errors.map((e) => e.pointer)).toEqual(['/secrets/A', '/secrets/B']);
  });
});

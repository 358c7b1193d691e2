import { describe, it, expect } from 'vitest';
import {
  deriveInstallationToken,
  deriveInstallLink,
  hashToken,
  newTokenSecret,
} from '../../../host/installations/tokens.ts';

describe('deriveInstallationToken', () => {
  it('is stable for one secret and installation, and differs across either', () => {
    const secret = newTokenSecret();
    expect(deriveInstallationToken(secret, 'inst_a')).toBe(deriveInstallationToken(secret, 'inst_a'));
    expect(deriveInstallationToken(secret, 'inst_a')).not.toBe(deriveInstallationToken(secret, 'inst_b'));
    expect(deriveInstallationToken(newTokenSecret(), 'inst_a')).not.toBe(deriveInstallationToken(secret, 'inst_a'));
    expect(deriveInstallationToken(secret, 'inst_a')).toMatch(/^iht_[A-Za-z0-9_-]{43}$/);
  });

  it('is stored only as a hash that does not contain the token', () => {
    const token = deriveInstallationToken('s', 'inst_a');
    expect(hashToken(token)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashToken(token)).not.toContain(token.slice(4, 12));
  });

  it('derives install links per integration', () => {
    expect(deriveInstallLink('s', 'a')).not.toBe(deriveInstallLink('s', 'b'));
  });
});

import { describe, it, expect } from 'vitest';
import { createEgressPolicy, excludingHostPort } from '../../../host/bridge/egress-policy.ts';

describe('excludingHostPort', () => {
  const open = createEgressPolicy({ allow: ['127.0.0.1', '::1', 'localhost'] });

  it('refuses the host port on loopback addresses even when loopback is allowed', () => {
    const policy = excludingHostPort(open, () => 8787);
    expect(policy.checkUrl(new URL('http://127.0.0.1:8787/'))).toMatch(/is this host itself/);
    expect(policy.checkAddress('localhost', '127.0.0.1', 8787)).toMatch(/is this host itself/);
    expect(policy.checkAddress('localhost', '::1', 8787)).toMatch(/is this host itself/);
  });

  it('leaves other ports and public destinations to the underlying policy', () => {
    const policy = excludingHostPort(open, () => 8787);
    expect(policy.checkUrl(new URL('http://127.0.0.1:9000/'))).toBeNull();
    expect(policy.checkAddress('example.com', '93.184.216.34', 8787)).toBeNull();
  });

  it('does nothing before the host port is known', () => {
    const policy = excludingHostPort(open, () => null);
    expect(policy.checkUrl(new URL('http://127.0.0.1:8787/'))).toBeNull();
  });
});

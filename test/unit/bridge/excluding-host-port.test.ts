import { describe, it, expect } from 'vitest';
import { createEgressPolicy, excludingHostPorts } from '../../../host/bridge/egress-policy.ts';

describe('excludingHostPorts', () => {
  const open = createEgressPolicy({ allow: ['127.0.0.1', '::1', 'localhost'] });

  it(
    "refuses each of the host's ports (HTTP, console, metrics) on loopback addresses even when loopback is " +
      'allowed',
    () => {
      const policy = excludingHostPorts(open, [8787, 8789, 9464]);
      for (const port of [8787, 8789, 9464]) {
        expect(policy.checkUrl(new URL(`http://127.0.0.1:${port}/`))).toMatch(/is this host itself/);
        expect(policy.checkAddress('localhost', '127.0.0.1', port)).toMatch(/is this host itself/);
        expect(policy.checkAddress('localhost', '::1', port)).toMatch(/is this host itself/);
      }
    },
  );

  it('leaves other ports and public destinations to the underlying policy', () => {
    const policy = excludingHostPorts(open, [8787, 8789]);
    expect(policy.checkUrl(new URL('http://127.0.0.1:9000/'))).toBeNull();
    expect(policy.checkAddress('example.com', '93.184.216.34', 8787)).toBeNull();
  });

  it("is applied by createEgressPolicy when the host's ports are given, and not without them", () => {
    expect(
      createEgressPolicy({ allow: ['127.0.0.1'], hostPorts: [8787, 8789] }).checkUrl(new URL('http://127.0.0.1:8789/')),
    ).toMatch(/is this host itself/);
    expect(createEgressPolicy({ allow: ['127.0.0.1'] }).checkUrl(new URL('http://127.0.0.1:8789/'))).toBeNull();
  });
});

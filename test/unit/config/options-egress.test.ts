// Host options for egress: every --allow-egress entry and every DNS override is read at startup,
// so a typo fails loudly instead of silently opening (or not opening) a destination.
import { describe, it, expect } from 'vitest';
import { resolveOptions } from '../../../host/config/options.ts';

describe('egress host options', () => {
  it('accept host names, addresses, ranges and single ports', () => {
    const options = resolveOptions({
      allowEgress: ['127.0.0.1:8080', '[::1]:8080', 'receiver.test:9000', '10.0.0.0/8', 'localhost'],
    });
    expect(options.allowEgress).toHaveLength(5);
  });

  it('refuse an unreadable --allow-egress entry with ERR_OPTIONS_INVALID naming it', () => {
    expect(() => resolveOptions({ allowEgress: ['127.0.0.1:99999'] })).toThrow(
      /--allow-egress "127\.0\.0\.1:99999": the port must be/,
    );
    expect(() => resolveOptions({ allowEgress: ['10.0.0.0/40'] })).toThrow(/not a CIDR range/);
  });

  it('accept a DNS override of IP addresses only', () => {
    expect(
      resolveOptions({ testHooks: { egressResolve: { 'metadata.test': ['169.254.169.254'] } } }).testHooks
        .egressResolve,
    ).toEqual({ 'metadata.test': ['169.254.169.254'] });
    expect(() => resolveOptions({ testHooks: { egressResolve: { 'metadata.test': ['metadata.internal'] } } })).toThrow(
      /"metadata\.internal" is not an IP address/,
    );
    expect(() => resolveOptions({ testHooks: { egressResolve: { 'metadata.test': [] } } })).toThrow(
      /ERR_OPTIONS_INVALID|must NOT have fewer than 1 items/,
    );
  });

  it('take the connect audit as a function only', () => {
    expect(() => resolveOptions({ testHooks: { onEgressConnect: 'log' as never } })).toThrow(
      /testHooks\.onEgressConnect must be a function/,
    );
  });
});

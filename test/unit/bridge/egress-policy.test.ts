import { describe, it, expect } from 'vitest';
import { classifyAddress, createEgressPolicy } from '../../../host/bridge/egress-policy.ts';

describe('classifyAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.1.2', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.5.4', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local (cloud metadata)'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local'],
    ['fd00:ec2::254', 'unique-local'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['64:ff9b::a9fe:a9fe', 'link-local (cloud metadata)'],
    ['[::1]', 'loopback'],
  ])('refuses %s as %s', (address, label) => {
    expect(classifyAddress(address)).toBe(label);
  });

  it.each(['93.184.216.34', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('accepts the public address %s', (address) => {
    expect(classifyAddress(address)).toBeNull();
  });

  it('rejects something that is not an IP address', () => {
    expect(classifyAddress('example.com')).toBe('not an IP address');
  });
});

describe('createEgressPolicy', () => {
  const strict = createEgressPolicy({ allow: [] });

  it('refuses schemes other than http and https', () => {
    expect(strict.checkUrl(new URL('file:///etc/passwd'))).toMatch(/scheme "file:"/);
    expect(strict.checkUrl(new URL('ftp://example.com/'))).toMatch(/scheme "ftp:"/);
  });

  it('refuses credentials in URLs', () => {
    expect(strict.checkUrl(new URL('https://user:pw@example.com/'))).toMatch(/credentials/);
  });

  it.each(['http://127.0.0.1/', 'http://127.1/', 'http://0x7f.0.0.1/', 'http://2130706433/', 'http://[::1]/', 'http://[::ffff:127.0.0.1]/', 'http://0.0.0.0/'])(
    'refuses the literal loopback spelling %s before any DNS',
    (url) => {
      expect(strict.checkUrl(new URL(url))).toMatch(/not allowed by --allow-egress/);
    },
  );

  it('leaves host names to the connect-time check', () => {
    expect(strict.checkUrl(new URL('https://localhost/'))).toBeNull();
    expect(strict.checkAddress('localhost', '127.0.0.1')).toMatch(/loopback/);
  });

  it('opens exceptions for an allowed address, CIDR or host name', () => {
    const open = createEgressPolicy({ allow: ['127.0.0.1', '10.1.0.0/16', 'metadata.internal'] });
    expect(open.checkUrl(new URL('http://127.0.0.1:9999/'))).toBeNull();
    expect(open.checkAddress('x', '10.1.2.3')).toBeNull();
    expect(open.checkAddress('x', '10.2.0.1')).toMatch(/private/);
    expect(open.checkAddress('metadata.internal', '169.254.169.254')).toBeNull();
    expect(open.checkAddress('other.internal', '169.254.169.254')).toMatch(/link-local/);
  });

  it('accepts public destinations', () => {
    expect(strict.checkAddress('example.com', '93.184.216.34')).toBeNull();
  });
});

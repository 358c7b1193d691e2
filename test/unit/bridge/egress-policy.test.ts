import { describe, it, expect } from 'vitest';
import { classifyAddress, createEgressPolicy, isExplicitlyAllowed } from '../../../host/bridge/egress-policy.ts';

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
    // Every spelling of an embedded IPv4 address is judged by that address.
    ['0:0:0:0:0:ffff:7f00:1', 'loopback'],
    ['::FFFF:127.0.0.1', 'loopback'],
    ['::ffff:0:7f00:1', 'loopback'],
    ['::ffff:a9fe:a9fe', 'link-local (cloud metadata)'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['::127.0.0.1', 'loopback'],
    ['2002:7f00:1::', 'loopback'],
    ['2002:a9fe:a9fe::1', 'link-local (cloud metadata)'],
    ['64:ff9b:1::a00:1', 'NAT64 local-use'],
    ['2001:0:4136:e378::1', 'Teredo tunnel'],
    ['fec0::1', 'site-local'],
    ['ff02::1', 'multicast'],
    ['fe80::1%eth0', 'link-local'],
    ['0.1.2.3', 'unspecified'],
    ['255.255.255.255', 'reserved'],
    ['239.255.255.250', 'multicast'],
    ['192.0.2.1', 'documentation'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['100.100.100.200', 'carrier-grade NAT'],
    ['172.31.255.255', 'private'],
  ])('refuses %s as %s', (address, label) => {
    expect(classifyAddress(address)).toBe(label);
  });

  it.each([
    '93.184.216.34',
    '1.1.1.1',
    '172.32.0.1',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ])('accepts the public address %s', (address) => {
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

  it.each([
    'http://127.0.0.1/',
    'http://127.1/',
    'http://0x7f.0.0.1/',
    'http://2130706433/',
    'http://[::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://0.0.0.0/',
  ])('refuses the literal loopback spelling %s before any DNS', (url) => {
    expect(strict.checkUrl(new URL(url))).toMatch(/not allowed by --allow-egress/);
  });

  it('leaves host names to the connect-time check', () => {
    expect(strict.checkUrl(new URL('https://localhost/'))).toBeNull();
    expect(strict.checkAddress('localhost', '127.0.0.1', 443)).toMatch(/loopback/);
  });

  it('opens exceptions for an allowed address, CIDR or host name', () => {
    const open = createEgressPolicy({ allow: ['127.0.0.1', '10.1.0.0/16', 'metadata.internal'] });
    expect(open.checkUrl(new URL('http://127.0.0.1:9999/'))).toBeNull();
    expect(open.checkAddress('x', '10.1.2.3', 80)).toBeNull();
    expect(open.checkAddress('x', '10.2.0.1', 80)).toMatch(/private/);
    expect(open.checkAddress('metadata.internal', '169.254.169.254', 80)).toBeNull();
    expect(open.checkAddress('other.internal', '169.254.169.254', 80)).toMatch(/link-local/);
  });

  it('accepts public destinations', () => {
    expect(strict.checkAddress('example.com', '93.184.216.34', 443)).toBeNull();
  });
});

describe('port-granular exceptions', () => {
  const open = createEgressPolicy({ allow: ['127.0.0.1:8080', '[::1]:9090', 'receiver.test:7070', '10.9.0.0/16'] });

  it('open one port of an address and nothing else of it', () => {
    expect(open.checkUrl(new URL('http://127.0.0.1:8080/'))).toBeNull();
    expect(open.checkUrl(new URL('http://127.0.0.1:8081/'))).toMatch(
      /loopback and not allowed by --allow-egress \(port 8081\)/,
    );
    expect(open.checkUrl(new URL('http://127.0.0.1/'))).toMatch(/port 80\)/);
    expect(open.checkUrl(new URL('http://127.0.0.2:8080/'))).toMatch(/loopback/);
  });

  it('treat an IPv4-mapped spelling as the same destination, and nothing else', () => {
    expect(open.checkUrl(new URL('http://[::ffff:127.0.0.1]:8080/'))).toBeNull();
    expect(open.checkUrl(new URL('http://[::ffff:127.0.0.1]:8081/'))).toMatch(/loopback/);
    expect(open.checkUrl(new URL('http://[64:ff9b::7f00:1]:8080/'))).toMatch(/loopback/);
  });

  it('open one port of an IPv6 address', () => {
    expect(open.checkUrl(new URL('http://[::1]:9090/'))).toBeNull();
    expect(open.checkUrl(new URL('http://[::1]:9091/'))).toMatch(/loopback/);
  });

  it('open one port of a host name, whatever it resolves to', () => {
    expect(open.checkAddress('receiver.test', '127.0.0.1', 7070)).toBeNull();
    expect(open.checkAddress('RECEIVER.test.', '127.0.0.1', 7070)).toBeNull();
    expect(open.checkAddress('receiver.test', '127.0.0.1', 7071)).toMatch(/loopback/);
  });

  it('keep ranges without a port open on every port', () => {
    expect(open.checkAddress('x', '10.9.1.1', 1)).toBeNull();
    expect(open.checkAddress('x', '10.9.1.1', 65535)).toBeNull();
  });
});

describe('isExplicitlyAllowed', () => {
  it('honours the port of an entry', () => {
    const options = { allow: ['127.0.0.1:9000', 'hooks.test'] };
    expect(isExplicitlyAllowed(options, '127.0.0.1', 9000)).toBe(true);
    expect(isExplicitlyAllowed(options, '127.0.0.1', 9001)).toBe(false);
    expect(isExplicitlyAllowed(options, 'hooks.test', 80)).toBe(true);
    expect(isExplicitlyAllowed(options, 'other.test', 80)).toBe(false);
  });
});

import { describe, it, expect } from 'vitest';
import { formatIp, inPrefix, parseIp } from '../../../host/bridge/ip-address.ts';

const format = (text: string) => {
  const ip = parseIp(text);
  return ip === null ? null : formatIp(ip);
};

describe('parseIp', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['::1', '0:0:0:0:0:0:0:1'],
    ['[::1]', '0:0:0:0:0:0:0:1'],
    ['::', '0:0:0:0:0:0:0:0'],
    ['::ffff:127.0.0.1', '0:0:0:0:0:ffff:7f00:1'],
    ['0:0:0:0:0:FFFF:7F00:0001', '0:0:0:0:0:ffff:7f00:1'],
    ['1:2:3:4:5:6:1.2.3.4', '1:2:3:4:5:6:102:304'],
    ['a::1.2.3.4', 'a:0:0:0:0:0:102:304'],
    ['::1.2.3.4', '0:0:0:0:0:0:102:304'],
    ['fe80::1%eth0', 'fe80:0:0:0:0:0:0:1'],
    ['2001:db8::', '2001:db8:0:0:0:0:0:0'],
  ])('reads %s', (text, expected) => {
    expect(format(text)).toBe(expected);
  });

  it.each(['example.com', '127.1', '2130706433', '0x7f000001', '1.2.3.4.5', ':::1', ''])(
    'is not fooled by %j',
    (text) => {
      expect(parseIp(text)).toBeNull();
    },
  );
});

describe('inPrefix', () => {
  it('compares only the prefix bits', () => {
    const net = parseIp('172.16.0.0')!.bytes;
    expect(inPrefix(parseIp('172.31.255.255')!.bytes, net, 12)).toBe(true);
    expect(inPrefix(parseIp('172.32.0.0')!.bytes, net, 12)).toBe(false);
    expect(inPrefix(parseIp('1.2.3.4')!.bytes, net, 0)).toBe(true);
  });

  it('never matches across families', () => {
    expect(inPrefix(parseIp('::')!.bytes, parseIp('0.0.0.0')!.bytes, 0)).toBe(false);
  });
});

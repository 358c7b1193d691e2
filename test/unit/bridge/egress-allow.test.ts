import { describe, it, expect } from 'vitest';
import { parseAllowEntry, parseAllowList } from '../../../host/bridge/egress-allow.ts';
import { formatIp } from '../../../host/bridge/ip-address.ts';

/** The entry as a short string, so the table below reads like the flag values. */
function show(raw: string): string {
  const entry = parseAllowEntry(raw);
  if (typeof entry === 'string') return `error: ${entry}`;
  const port = entry.port === undefined ? '' : ` port ${entry.port}`;
  return entry.kind === 'host'
    ? `host ${entry.host}${port}`
    : `range ${formatIp(entry.network)}/${entry.prefix}${port}`;
}

describe('parseAllowEntry', () => {
  it.each([
    ['127.0.0.1', 'range 127.0.0.1/32'],
    ['127.0.0.1:8080', 'range 127.0.0.1/32 port 8080'],
    ['::1', 'range 0:0:0:0:0:0:0:1/128'],
    ['[::1]', 'range 0:0:0:0:0:0:0:1/128'],
    ['[::1]:8080', 'range 0:0:0:0:0:0:0:1/128 port 8080'],
    ['10.0.0.0/8', 'range 10.0.0.0/8'],
    ['fd00::/8', 'range fd00:0:0:0:0:0:0:0/8'],
    ['localhost', 'host localhost'],
    ['Receiver.Test.:7070', 'host receiver.test port 7070'],
    [' hooks.example.com ', 'host hooks.example.com'],
  ])('reads %j as %s', (raw, expected) => {
    expect(show(raw)).toBe(expected);
  });

  it.each([
    ['127.0.0.1:0', /port must be a number from 1 to 65535/],
    ['127.0.0.1:65536', /port must be/],
    ['127.0.0.1:http', /port must be/],
    ['[::1]:', /port must be/],
    ['[localhost]:80', /only IPv6 addresses go in brackets/],
    ['10.0.0.0/33', /not a CIDR range/],
    ['fd00::/129', /not a CIDR range/],
    ['example.com/8', /not a CIDR range/],
    ['', /neither a host name/],
    ['http://127.0.0.1/', /not a CIDR range/],
    ['a b', /neither a host name/],
    ['*', /neither a host name/],
  ])('refuses %j', (raw, message) => {
    expect(show(raw)).toMatch(message);
  });

  it('reports every unreadable entry of a list and keeps the readable ones', () => {
    const { entries, errors } = parseAllowList(['127.0.0.1:1', 'bad entry', '10.0.0.0/99']);
    expect(entries).toHaveLength(1);
    expect(errors).toHaveLength(2);
  });
});

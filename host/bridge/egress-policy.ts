// Pure egress decisions for guest `fetch`: which URLs and resolved addresses may be contacted.
// Never performs I/O; the fetch bridge calls these before connecting and again at connect time
// (after DNS), so a hostname that resolves to a forbidden address is refused too.

import { BlockList, isIP } from 'node:net';

export interface EgressOptions {
  /** `--allow-egress` entries: host names, IP addresses or CIDR ranges. */
  allow: string[];
}

/** Ranges no guest may reach unless explicitly allowed (loopback, private, link-local, …). */
const FORBIDDEN_V4: [string, number, string][] = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'carrier-grade NAT'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local (cloud metadata)'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignments'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];
const FORBIDDEN_V6: [string, number, string][] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['fc00::', 7, 'unique-local'],
  ['fe80::', 10, 'link-local'],
  ['ff00::', 8, 'multicast'],
  ['2001:db8::', 32, 'documentation'],
];

function classifyV4(address: string): string | null {
  for (const [net, prefix, label] of FORBIDDEN_V4) {
    const list = new BlockList();
    list.addSubnet(net, prefix, 'ipv4');
    if (list.check(address, 'ipv4')) return label;
  }
  return null;
}

/** IPv6 forms that embed an IPv4 address (mapped, NAT64, compatible) are judged by that address. */
function embeddedV4(address: string): string | null {
  const lower = address.toLowerCase();
  const dotted = lower.match(/^(?:::ffff:|64:ff9b::|::ffff:0:|::)(\d+\.\d+\.\d+\.\d+)$/);
  if (dotted) return dotted[1];
  const hex = lower.match(/^(?:::ffff:|64:ff9b::|::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/);
  if (hex) {
    const hi = parseInt(hex[1], 16);
    const lo = parseInt(hex[2], 16);
    return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  }
  return null;
}

/** Why an address is not public, or null when it is a public unicast address. */
export function classifyAddress(address: string): string | null {
  const bare = address.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  if (family === 4) return classifyV4(bare);
  if (family !== 6) return 'not an IP address';
  const v4 = embeddedV4(bare);
  if (v4 !== null) {
    const inner = classifyV4(v4);
    return inner ?? null;
  }
  for (const [net, prefix, label] of FORBIDDEN_V6) {
    const list = new BlockList();
    list.addSubnet(net, prefix, 'ipv6');
    if (list.check(bare, 'ipv6')) return label;
  }
  return null;
}

function allowListFor(options: EgressOptions): { hosts: Set<string>; ranges: BlockList } {
  const hosts = new Set<string>();
  const ranges = new BlockList();
  for (const entry of options.allow) {
    const [net, prefixText] = entry.split('/');
    const bare = net.replace(/^\[|\]$/g, '');
    const family = isIP(bare);
    if (family === 0) {
      hosts.add(entry.toLowerCase());
      continue;
    }
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (prefixText === undefined) ranges.addAddress(bare, type);
    else ranges.addSubnet(bare, Number(prefixText), type);
  }
  return { hosts, ranges };
}

/** Whether `--allow-egress` names this host (by name, address or range): used where plain http is only acceptable to an explicit exception. */
export function isExplicitlyAllowed(options: EgressOptions, hostname: string): boolean {
  const allowed = allowListFor(options);
  const bare = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  if (allowed.hosts.has(bare)) return true;
  const family = isIP(bare);
  if (family === 0) return false;
  return allowed.ranges.check(bare, family === 4 ? 'ipv4' : 'ipv6');
}

export interface EgressPolicy {
  /** Checks scheme, credentials and literal-address hosts before any DNS; returns a refusal reason or null. */
  checkUrl(url: URL): string | null;
  /** Checks one resolved address for a host at connect time; returns a refusal reason or null. */
  checkAddress(hostname: string, address: string): string | null;
}

export function createEgressPolicy(options: EgressOptions): EgressPolicy {
  const allowed = allowListFor(options);
  const isAllowedAddress = (address: string): boolean => {
    const bare = address.replace(/^\[|\]$/g, '');
    const family = isIP(bare);
    if (family === 0) return false;
    const v4 = family === 6 ? embeddedV4(bare) : null;
    if (v4 !== null && allowed.ranges.check(v4, 'ipv4')) return true;
    return allowed.ranges.check(bare, family === 4 ? 'ipv4' : 'ipv6');
  };
  const hostAllowed = (hostname: string): boolean => allowed.hosts.has(hostname.toLowerCase().replace(/^\[|\]$/g, ''));

  return {
    checkUrl(url) {
      if (url.protocol !== 'http:' && url.protocol !== 'https:') return `scheme "${url.protocol}" is not allowed (only http: and https:)`;
      if (url.username !== '' || url.password !== '') return 'credentials in URLs are not allowed';
      const host = url.hostname.replace(/^\[|\]$/g, '');
      if (isIP(host) !== 0) return this.checkAddress(host, host);
      return null;
    },
    checkAddress(hostname, address) {
      if (hostAllowed(hostname) || isAllowedAddress(address)) return null;
      const reason = classifyAddress(address);
      return reason === null ? null : `destination ${hostname} (${address}) is ${reason} and not allowed by --allow-egress`;
    },
  };
}

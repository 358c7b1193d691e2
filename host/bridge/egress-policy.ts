// Pure egress decisions for guest `fetch` (and webhook delivery): which URLs and resolved
// addresses may be contacted. Never performs I/O; the callers check the URL before any DNS and
// every resolved address at connect time, so a name that resolves to a forbidden address fails too.

import { inPrefix, parseIp, type IpAddress } from './ip-address.ts';
import { normalizeHost, parseAllowList, type AllowEntry } from './egress-allow.ts';

export interface EgressOptions {
  /** `--allow-egress` entries: host names, IP addresses or CIDR ranges, the first two optionally with `:port`. */
  allow: string[];
  /**
   * Testing aid: fixed DNS answers (`{ 'metadata.test': ['169.254.169.254'] }`) used instead of
   * the system resolver for those names, so tests can aim a name at any address without traffic.
   */
  resolve?: Record<string, string[]>;
  /**
   * The ports the host itself listens on (HTTP, console, metrics): on a non-public address they are
   * never a destination, whatever `allow` says (see excludingHostPorts). Guest fetch and webhook
   * delivery both set them.
   */
  hostPorts?: readonly number[];
}

type Range = [network: string, prefix: number, label: string];

/** Ranges no guest may reach unless explicitly allowed. */
const FORBIDDEN_V4: Range[] = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'carrier-grade NAT'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local (cloud metadata)'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignments'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, '6to4 relay anycast'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];
const FORBIDDEN_V6: Range[] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['64:ff9b:1::', 48, 'NAT64 local-use'],
  ['100::', 64, 'discard-only'],
  ['2001::', 32, 'Teredo tunnel'],
  ['2001:db8::', 32, 'documentation'],
  ['fc00::', 7, 'unique-local'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'site-local'],
  ['ff00::', 8, 'multicast'],
];

const compile = (ranges: Range[]) =>
  ranges.map(([net, prefix, label]) => ({ network: parseIp(net)!.bytes, prefix, label }));
const V4 = compile(FORBIDDEN_V4);
const V6 = compile(FORBIDDEN_V6);

/** IPv6 prefixes whose low 32 bits (or, for 6to4, bits 16–48) carry an IPv4 destination. */
const EMBEDDING: [network: Uint8Array, prefix: number, offset: number][] = [
  [parseIp('::ffff:0:0')!.bytes, 96, 12], // IPv4-mapped
  [parseIp('::ffff:0:0:0')!.bytes, 96, 12], // IPv4-translated (SIIT)
  [parseIp('64:ff9b::')!.bytes, 96, 12], // NAT64 well-known prefix
  [parseIp('::')!.bytes, 96, 12], // IPv4-compatible (deprecated)
  [parseIp('2002::')!.bytes, 16, 2], // 6to4
];

function classifyV4(bytes: Uint8Array): string | null {
  return V4.find((range) => inPrefix(bytes, range.network, range.prefix))?.label ?? null;
}

/** The IPv4 address an IPv6 address stands for, if it embeds one. */
function embeddedV4(bytes: Uint8Array): Uint8Array | null {
  for (const [network, prefix, offset] of EMBEDDING) {
    if (inPrefix(bytes, network, prefix)) return bytes.slice(offset, offset + 4);
  }
  return null;
}

/** Why an address is not public, or null when it is a public unicast address. */
export function classifyAddress(address: string): string | null {
  const ip = parseIp(address);
  if (ip === null) return 'not an IP address';
  if (ip.family === 4) return classifyV4(ip.bytes);
  // `::` and `::1` first: inside ::/96 they would otherwise be read as 0.0.0.0 and 0.0.0.1.
  const own = V6.find((range) => range.prefix === 128 && inPrefix(ip.bytes, range.network, 128));
  if (own) return own.label;
  const v4 = embeddedV4(ip.bytes);
  if (v4 !== null) return classifyV4(v4);
  return V6.find((range) => inPrefix(ip.bytes, range.network, range.prefix))?.label ?? null;
}

/** The port a URL connects to. */
export function portOf(url: URL): number {
  if (url.port !== '') return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}

function portMatches(entry: AllowEntry, port: number | undefined): boolean {
  return entry.port === undefined || entry.port === port;
}

function addressMatches(entries: AllowEntry[], ip: IpAddress, port: number | undefined): boolean {
  // An IPv4-mapped address is the same destination as its IPv4 address (other embeddings are not:
  // a NAT64 or 6to4 address goes through a gateway, so an IPv4 exception does not extend to it).
  const mapped = ip.family === 6 && inPrefix(ip.bytes, EMBEDDING[0][0], 96) ? ip.bytes.slice(12) : null;
  return entries.some(
    (entry) =>
      entry.kind === 'range' &&
      portMatches(entry, port) &&
      (inPrefix(ip.bytes, entry.network.bytes, entry.prefix) ||
        (mapped !== null && inPrefix(mapped, entry.network.bytes, entry.prefix))),
  );
}

function hostMatches(entries: AllowEntry[], hostname: string, port: number | undefined): boolean {
  const host = normalizeHost(hostname);
  return entries.some((entry) => entry.kind === 'host' && entry.host === host && portMatches(entry, port));
}

function entriesOf(options: EgressOptions): AllowEntry[] {
  // Options are validated at startup (resolveOptions); an unreadable entry here opens nothing.
  return parseAllowList(options.allow).entries;
}

/**
 * Whether `--allow-egress` names this host (by name, address or range) for this port: where plain http is only
 * acceptable to an explicit exception.
 */
export function isExplicitlyAllowed(options: EgressOptions, hostname: string, port: number): boolean {
  const entries = entriesOf(options);
  const ip = parseIp(hostname);
  return hostMatches(entries, hostname, port) || (ip !== null && addressMatches(entries, ip, port));
}

export interface EgressPolicy {
  /** Checks scheme, credentials and literal-address hosts before any DNS; returns a refusal reason or null. */
  checkUrl(url: URL): string | null;
  /** Checks one resolved address of `hostname` for a connection to `port`; returns a refusal reason or null. */
  checkAddress(hostname: string, address: string, port: number): string | null;
}

export function createEgressPolicy(options: EgressOptions): EgressPolicy {
  const policy = allowListPolicy(options);
  const { hostPorts } = options;
  return hostPorts === undefined || hostPorts.length === 0 ? policy : excludingHostPorts(policy, hostPorts);
}

function allowListPolicy(options: EgressOptions): EgressPolicy {
  const entries = entriesOf(options);
  const checkAddress = (hostname: string, address: string, port: number): string | null => {
    const ip = parseIp(address);
    if (hostMatches(entries, hostname, port) || (ip !== null && addressMatches(entries, ip, port))) return null;
    const reason = classifyAddress(address);
    return reason === null
      ? null
      : `destination ${normalizeHost(hostname)} (${address}) is ${reason} ` +
          `and not allowed by --allow-egress (port ${port})`;
  };
  return {
    checkUrl(url) {
      if (url.protocol !== 'http:' && url.protocol !== 'https:')
        return `scheme "${url.protocol}" is not allowed (only http: and https:)`;
      if (url.username !== '' || url.password !== '') return 'credentials in URLs are not allowed';
      const host = normalizeHost(url.hostname);
      if (parseIp(host) !== null) return checkAddress(host, host, portOf(url));
      return null;
    },
    checkAddress,
  };
}

/**
 * The host's own ports (HTTP, console, metrics) are never an egress destination on a non-public
 * address, whatever --allow-egress says: otherwise `http://localhost:<port>` (or any other loopback
 * spelling) would reach the host's public endpoints, API, console or metrics around the bridge. The
 * API is reached through environment.apiEndpoint, which the worker routes over IPC before any policy check.
 */
export function excludingHostPorts(policy: EgressPolicy, hostPorts: readonly number[]): EgressPolicy {
  const ports = new Set(hostPorts);
  const refuse = (address: string, port: number): string | null =>
    ports.has(port) && classifyAddress(address) !== null
      ? `destination ${address}:${port} is this host itself (integrations ` +
        `reach the platform API through environment.apiEndpoint)`
      : null;
  return {
    checkUrl(url) {
      const reason = policy.checkUrl(url);
      if (reason !== null) return reason;
      const host = url.hostname.replace(/^\[|\]$/g, '');
      return parseIp(host) === null ? null : refuse(host, portOf(url));
    },
    checkAddress(hostname, address, port) {
      return refuse(address, port) ?? policy.checkAddress(hostname, address, port);
    },
  };
}

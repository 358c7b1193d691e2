// Parses `--allow-egress` entries: a host name, an IP address or a CIDR range, the first two
// optionally with one port (`127.0.0.1:8080`, `[::1]:8080`, `receiver.test:8080`). Pure; an
// entry it cannot read is an error, never silently widened into "any host".

import { isIP } from 'node:net';
import { parseIp, type IpAddress } from './ip-address.ts';

export type AllowEntry =
  | { kind: 'host'; host: string; port?: number }
  | { kind: 'range'; network: IpAddress; prefix: number; port?: number };

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,62})(?:\.[a-z0-9_](?:[a-z0-9_-]{0,62}))*$/;

/** Lower case, no trailing dot, no brackets: how host names are compared everywhere in the policy. */
export function normalizeHost(hostname: string): string {
  return hostname
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
}

function parsePort(text: string | undefined): number | undefined | null {
  if (text === undefined) return undefined;
  const port = Number(text);
  return /^\d{1,5}$/.test(text) && port >= 1 && port <= 65535 ? port : null;
}

function hostOrAddress(text: string, portText: string | undefined, entry: string): AllowEntry | string {
  const port = parsePort(portText);
  if (port === null) return `"${entry}": the port must be a number from 1 to 65535`;
  const address = parseIp(text);
  const withPort = port === undefined ? {} : { port };
  if (address !== null)
    return { kind: 'range', network: address, prefix: address.family === 4 ? 32 : 128, ...withPort };
  const host = normalizeHost(text);
  if (!HOST_NAME.test(host)) return `"${entry}" is neither a host name, an IP address nor a CIDR range`;
  return { kind: 'host', host, ...withPort };
}

/** One entry, or the reason it is not one. */
export function parseAllowEntry(raw: string): AllowEntry | string {
  const entry = raw.trim();
  const bracketed = /^\[([^\]]+)\](?::([^:]*))?$/.exec(entry);
  if (bracketed) {
    if (isIP(bracketed[1]) !== 6) return `"${raw}": only IPv6 addresses go in brackets`;
    return hostOrAddress(bracketed[1], bracketed[2], raw);
  }
  const slash = entry.indexOf('/');
  if (slash !== -1) {
    const network = parseIp(entry.slice(0, slash));
    const prefixText = entry.slice(slash + 1);
    const max = network?.family === 4 ? 32 : 128;
    if (network === null || !/^\d{1,3}$/.test(prefixText) || Number(prefixText) > max) {
      return `"${raw}" is not a CIDR range (address/prefix, prefix 0–32 for IPv4, 0–128 for IPv6)`;
    }
    return { kind: 'range', network, prefix: Number(prefixText) };
  }
  if (isIP(entry) === 6) return hostOrAddress(entry, undefined, raw);
  const withPort = /^([^:]+):([^:]*)$/.exec(entry);
  if (withPort) return hostOrAddress(withPort[1], withPort[2], raw);
  return hostOrAddress(entry, undefined, raw);
}

/** Every entry parsed; `errors` names each entry that could not be read. */
export function parseAllowList(entries: readonly string[]): { entries: AllowEntry[]; errors: string[] } {
  const parsed: AllowEntry[] = [];
  const errors: string[] = [];
  for (const raw of entries) {
    const result = parseAllowEntry(raw);
    if (typeof result === 'string') errors.push(result);
    else parsed.push(result);
  }
  return { entries: parsed, errors };
}

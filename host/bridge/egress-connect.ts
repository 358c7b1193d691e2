// The connect-time half of the egress policy, shared by guest `fetch` and webhook delivery:
// resolve a host, keep only the addresses the policy accepts, pin the socket to them, and tell an
// optional audit every address:port a socket is pointed at. Never opens a socket itself.

import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import { parseIp } from './ip-address.ts';
import { portOf, type EgressPolicy } from './egress-policy.ts';

/** A destination the policy refused (as opposed to a network failure). */
export class EgressRefusal extends Error {}

/** Told every destination a socket is about to connect to (the connect audit). */
export type ConnectAudit = (address: string, port: number) => void;

/**
 * Resolves the host with the (injectable) lookup and keeps only the addresses the policy accepts
 * for `port`. The socket is then pinned to exactly those addresses, so a second DNS answer
 * (rebinding) can never be used. Refusal reasons are appended to `refusals` for the caller's log.
 */
async function resolveAllowed(
  policy: EgressPolicy,
  lookup: LookupFunction,
  hostname: string,
  port: number,
  refusals: string[] = [],
): Promise<dns.LookupAddress[]> {
  const bare = hostname.replace(/^\[|\]$/g, '');
  const literal = parseIp(bare);
  if (literal !== null) return [{ address: bare, family: literal.family }];
  const addresses = await new Promise<dns.LookupAddress[]>((resolve, reject) => {
    lookup(bare, { all: true }, (error, result) => {
      if (error) reject(error);
      else resolve((Array.isArray(result) ? result : [{ address: String(result), family: 4 }]) as dns.LookupAddress[]);
    });
  });
  const accepted = addresses.filter((entry) => {
    const reason = policy.checkAddress(bare, entry.address, port);
    if (reason !== null) refusals.push(reason);
    return reason === null;
  });
  if (accepted.length === 0) throw new EgressRefusal(refusals[0] ?? `no address for ${bare}`);
  return accepted;
}

/** A lookup that only ever answers the already-checked addresses (and reports each to the audit). */
function pinnedLookup(addresses: dns.LookupAddress[], port: number, audit?: ConnectAudit): LookupFunction {
  return ((_hostname: string, options: dns.LookupOptions, callback: (...args: unknown[]) => void) => {
    const handed = options.all ? addresses : addresses.slice(0, 1);
    for (const entry of handed) audit?.(entry.address, port);
    if (options.all) callback(null, addresses);
    else callback(null, addresses[0].address, addresses[0].family);
  }) as LookupFunction;
}

export interface CheckedLookupOptions {
  lookup?: LookupFunction;
  refusals?: string[];
  audit?: ConnectAudit;
}

/**
 * Checks the URL (scheme, credentials, literal addresses), then resolves and checks every address.
 * Returns the pinned lookup to pass to http(s).request; throws EgressRefusal or the DNS error.
 * A literal address is reported to the audit here, because net connects to it without a lookup.
 */
export async function checkedLookupFor(
  url: URL,
  policy: EgressPolicy,
  options: CheckedLookupOptions = {},
): Promise<LookupFunction> {
  const refusal = policy.checkUrl(url);
  if (refusal !== null) throw new EgressRefusal(refusal);
  const port = portOf(url);
  const addresses = await resolveAllowed(
    policy,
    options.lookup ?? (dns.lookup as LookupFunction),
    url.hostname,
    port,
    options.refusals,
  );
  if (parseIp(url.hostname.replace(/^\[|\]$/g, '')) !== null) options.audit?.(addresses[0].address, port);
  return pinnedLookup(addresses, port, options.audit);
}

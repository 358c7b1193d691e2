// The connect-time half of the egress policy, shared by guest `fetch` and webhook delivery:
// resolve a host, keep only the addresses the policy accepts, and pin the socket to them.
// Never opens a socket itself; a refused destination must never get one.

import dns from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import type { EgressPolicy } from './egress-policy.ts';

/** A destination the policy refused (as opposed to a network failure). */
export class EgressRefusal extends Error {}

/**
 * Resolves the host with the (injectable) lookup and keeps only the addresses the policy accepts.
 * The socket is then pinned to exactly those addresses, so a second DNS answer (rebinding) can
 * never be used. Refusal reasons are appended to `refusals` for the caller's log.
 */
export async function resolveAllowed(policy: EgressPolicy, lookup: LookupFunction, hostname: string, refusals: string[] = []): Promise<dns.LookupAddress[]> {
  const bare = hostname.replace(/^\[|\]$/g, '');
  if (isIP(bare) !== 0) return [{ address: bare, family: isIP(bare) }];
  const addresses = await new Promise<dns.LookupAddress[]>((resolve, reject) => {
    lookup(bare, { all: true }, (error, result) => {
      if (error) reject(error);
      else resolve((Array.isArray(result) ? result : [{ address: String(result), family: 4 }]) as dns.LookupAddress[]);
    });
  });
  const accepted = addresses.filter((entry) => {
    const reason = policy.checkAddress(bare, entry.address);
    if (reason !== null) refusals.push(reason);
    return reason === null;
  });
  if (accepted.length === 0) throw new EgressRefusal(refusals[0] ?? `no address for ${bare}`);
  return accepted;
}

/** A lookup that only ever answers the already-checked addresses. */
export function pinnedLookup(addresses: dns.LookupAddress[]): LookupFunction {
  return ((_hostname: string, options: dns.LookupOptions, callback: (...args: unknown[]) => void) => {
    if (options.all) callback(null, addresses);
    else callback(null, addresses[0].address, addresses[0].family);
  }) as LookupFunction;
}

/**
 * Checks the URL (scheme, credentials, literal addresses), then resolves and checks every address.
 * Returns the pinned lookup to pass to http(s).request; throws EgressRefusal or the DNS error.
 */
export async function checkedLookupFor(url: URL, policy: EgressPolicy, lookup: LookupFunction = dns.lookup as LookupFunction, refusals: string[] = []): Promise<LookupFunction> {
  const refusal = policy.checkUrl(url);
  if (refusal !== null) throw new EgressRefusal(refusal);
  return pinnedLookup(await resolveAllowed(policy, lookup, url.hostname, refusals));
}

// The DNS lookup guest fetch uses: the system resolver, except for the names a test or a
// developer pinned with the `egressResolve` host option (a testing aid). The answer still goes
// through the egress policy like any other: an override can never open what the policy refuses.

import dns from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { normalizeHost } from './egress-allow.ts';

/** Problems with an override map (a name with no answer, an answer that is not an IP address). */
export function checkResolveOverrides(overrides: Record<string, unknown>): string[] {
  const problems: string[] = [];
  for (const [name, answers] of Object.entries(overrides)) {
    if (!Array.isArray(answers) || answers.length === 0)
      problems.push(`egressResolve["${name}"] must list at least one IP address`);
    else
      for (const answer of answers)
        if (typeof answer !== 'string' || isIP(answer) === 0)
          problems.push(`egressResolve["${name}"]: "${String(answer)}" is not an IP address`);
  }
  return problems;
}

/** A lookup answering the overridden names from the map and every other name from `fallback`. */
export function lookupWithOverrides(
  overrides: Record<string, string[]> | undefined,
  fallback: LookupFunction = dns.lookup as LookupFunction,
): LookupFunction {
  const table = new Map(
    Object.entries(overrides ?? {}).map(([name, answers]) => [
      normalizeHost(name),
      answers.map((address) => ({ address, family: isIP(address) })),
    ]),
  );
  if (table.size === 0) return fallback;
  return ((hostname: string, options: dns.LookupOptions, callback: (...args: unknown[]) => void) => {
    const fixed = table.get(normalizeHost(hostname));
    if (fixed === undefined) return fallback(hostname, options, callback as never);
    const family = options.family === 4 || options.family === 6 ? options.family : 0;
    const answers = family === 0 ? fixed : fixed.filter((entry) => entry.family === family);
    if (answers.length === 0) {
      const error = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
      return process.nextTick(() => callback(error));
    }
    process.nextTick(() =>
      options.all ? callback(null, answers) : callback(null, answers[0].address, answers[0].family),
    );
  }) as LookupFunction;
}

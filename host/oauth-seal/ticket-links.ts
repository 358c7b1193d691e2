// Connect tickets for the buttons a GitBook integration draws itself: a configuration component
// that opens `<installation endpoint>/oauth` with `@ui.url.open` (github, github-copilot) starts
// its flow from a URL no admin view built. Rendered for an admin, such a URL gets the ticket of
// the installation it opens, as manifest buttons do (installations/view.ts). Pure over the
// rendered JSON; never touches a URL outside the installations it is given.

import { urlWithParam } from './raw-params.ts';

/** An installation whose endpoint a rendered URL may open, and how to mint its ticket. */
export interface TicketedEndpoint {
  /** The installation's public endpoint (absolute). */
  publicEndpoint: string;
  ticket(): string;
}

function endpointOf(url: string, endpoints: readonly TicketedEndpoint[]): TicketedEndpoint | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  return endpoints.find((endpoint) => {
    const base = new URL(endpoint.publicEndpoint);
    return (
      parsed.origin === base.origin &&
      (parsed.pathname === base.pathname || parsed.pathname.startsWith(`${base.pathname}/`))
    );
  });
}

/**
 * A copy of a render answer in which every `{ action: '@ui.url.open', url }` opening one of
 * `endpoints` carries that installation's connect ticket. Everything else is copied as is.
 */
export function withConnectTickets(value: unknown, endpoints: readonly TicketedEndpoint[]): unknown {
  if (Array.isArray(value)) return value.map((item) => withConnectTickets(item, endpoints));
  if (typeof value !== 'object' || value === null) return value;
  const copy: Record<string, unknown> = {};
  // Defined, not assigned: a `__proto__` key of parsed JSON stays a key.
  for (const [key, item] of Object.entries(value))
    Object.defineProperty(copy, key, {
      value: withConnectTickets(item, endpoints),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  if (copy.action === '@ui.url.open' && typeof copy.url === 'string') {
    const endpoint = endpointOf(copy.url, endpoints);
    if (endpoint !== undefined) copy.url = urlWithParam(copy.url, 'ticket', endpoint.ticket());
  }
  return copy;
}

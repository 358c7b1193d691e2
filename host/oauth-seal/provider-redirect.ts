// Recognising, in an integration's answer, the redirect that sends a browser to an OAuth provider
// and brings it back to this host: a 3xx whose Location carries a `redirect_uri` (RFC 6749's
// name) on the integration's own endpoint or on the endpoint of the installation that answered.
// A redirect_uri anywhere else is the integration's own business and is left alone. Pure.

import { paramValues, splitUrl, urlWithParam } from './raw-params.ts';

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** Where a callback may come back to: this host's origin and the endpoints of the answering dispatch. */
export interface CallbackEndpoints {
  /** `new URL(baseUrl).origin`. */
  origin: string;
  /** The path of the integration's own endpoint (`/v1/integrations/<name>/integration`). */
  integrationPath: string;
  /** The path of the answering installation's endpoint; absent on the integration's own endpoint. */
  installationPath?: string;
}

export interface ProviderRedirect {
  /** The Location header as the integration wrote it. */
  location: string;
  /** The path of its redirect_uri, where the sealed state will be accepted. */
  callbackPath: string;
  /** Every `state` the integration put in it (decoded), in order. */
  states: string[];
}

function under(path: string, endpoint: string | undefined): boolean {
  return endpoint !== undefined && (path === endpoint || path.startsWith(`${endpoint}/`));
}

/** The one Location of a redirect answer, or undefined. */
function locationOf(status: number, headers: readonly [string, string][]): string | undefined {
  if (!REDIRECT_STATUSES.has(status)) return undefined;
  const locations = headers.filter(([name]) => name.toLowerCase() === 'location');
  return locations.length === 1 ? locations[0][1] : undefined;
}

/**
 * The provider redirect of an answer whose redirect_uri comes back to `endpoints`; undefined for
 * every other answer (not a redirect, no redirect_uri, a redirect_uri elsewhere or unparseable).
 */
export function findProviderRedirect(
  status: number,
  headers: readonly [string, string][],
  endpoints: CallbackEndpoints,
): ProviderRedirect | undefined {
  const location = locationOf(status, headers);
  if (location === undefined) return undefined;
  const query = splitUrl(location).query;
  const [redirectUri] = paramValues(query, 'redirect_uri');
  if (redirectUri === undefined) return undefined;
  let target: URL;
  try {
    target = new URL(redirectUri);
  } catch {
    return undefined;
  }
  if (target.origin !== endpoints.origin) return undefined;
  if (!under(target.pathname, endpoints.integrationPath) && !under(target.pathname, endpoints.installationPath))
    return undefined;
  return { location, callbackPath: target.pathname, states: paramValues(query, 'state') };
}

/** The redirect's Location with the host's state in place of the integration's; nothing else changes. */
export function sealedLocation(redirect: ProviderRedirect, state: string): string {
  return urlWithParam(redirect.location, 'state', state);
}

// Keeps integrations apart in a browser although every public endpoint shares the host's origin.
// Each answer is sandboxed (CSP `sandbox` without allow-same-origin: an opaque origin, so its
// scripts can neither read cookies nor script other pages of the host), its cookies are renamed
// into a namespace of its installation and scoped to its endpoint's path, and a request carries
// only its own installation's cookies. Pure: header lists in, header lists out.

import type { SandboxResponse } from '../../sandbox-api/runtime/contract.ts';

/** Everything an ordinary page needs but the same origin: no cookie access, no storage, no touching other frames. */
export const PUBLIC_ENDPOINT_CSP =
  'sandbox allow-scripts allow-forms allow-popups allow-popups-to-escape-sandbox allow-downloads allow-modals';

/**
 * Headers an integration may not send: they act on the whole origin, i.e. on every other integration and the console.
 */
const ORIGIN_WIDE = new Set(['clear-site-data', 'service-worker-allowed']);

const COOKIE_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** The prefix of an installation's cookies in the browser (ids are letters, digits, `_` and `-`). */
export function cookiePrefix(installationId: string): string {
  return `ih-${installationId}-`;
}

/**
 * The cookie namespace of an integration's own endpoint: `integration.<name>`, which no installation
 * id can spell (ids are `inst_…`, letters, digits, `_` and `-`).
 */
export function integrationCookieKey(integration: string): string {
  return `integration.${integration}`;
}

/**
 * The `Cookie` header an installation receives: only the cookies set through its own endpoint,
 * under the names it gave them. Null when none is left.
 */
export function cookiesForInstallation(header: string, installationId: string): string | null {
  const prefix = cookiePrefix(installationId);
  const own: string[] = [];
  for (const pair of header.split(';')) {
    const trimmed = pair.trim();
    if (trimmed.startsWith(prefix) && trimmed.length > prefix.length) own.push(trimmed.slice(prefix.length));
  }
  return own.length > 0 ? own.join('; ') : null;
}

/** A path under the endpoint: the integration's `/` is its endpoint. Never climbs out of it. */
function scopedPath(endpointPath: string, path: string | undefined): string {
  const segments: string[] = [];
  for (const segment of (path ?? '/').split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  return segments.length === 0 ? endpointPath : `${endpointPath}/${segments.join('/')}`;
}

/**
 * One `Set-Cookie` value renamed into the installation's namespace, its `Path` scoped to the
 * endpoint and its `Domain` dropped (host-only); null when it is not a cookie (it is then dropped).
 */
export function rewriteSetCookie(value: string, installationId: string, endpointPath: string): string | null {
  const [pair, ...attributes] = value.split(';');
  const equals = pair.indexOf('=');
  if (equals <= 0) return null;
  const name = pair.slice(0, equals).trim();
  if (!COOKIE_NAME.test(name)) return null;
  let path: string | undefined;
  const kept: string[] = [];
  for (const attribute of attributes) {
    const trimmed = attribute.trim();
    const key = trimmed.split('=')[0].trim().toLowerCase();
    if (key === 'path') path = trimmed.slice(trimmed.indexOf('=') + 1).trim();
    else if (key !== 'domain' && trimmed !== '') kept.push(trimmed);
  }
  return [
    `${cookiePrefix(installationId)}${name}=${pair.slice(equals + 1).trim()}`,
    `Path=${scopedPath(endpointPath, path)}`,
    ...kept,
  ].join('; ');
}

/** The answer of an installation's public endpoint as a browser may see it (see the header). */
export function isolateInBrowser(
  response: SandboxResponse,
  installationId: string,
  endpointPath: string,
): SandboxResponse {
  const headers: [string, string][] = [];
  for (const [name, value] of response.headers) {
    const lower = name.toLowerCase();
    if (ORIGIN_WIDE.has(lower)) continue;
    if (lower === 'set-cookie') {
      const rewritten = rewriteSetCookie(value, installationId, endpointPath);
      if (rewritten !== null) headers.push([name, rewritten]);
      continue;
    }
    headers.push([name, value]);
  }
  // Added beside the integration's own policies: a browser enforces every CSP header it gets.
  headers.push(['content-security-policy', PUBLIC_ENDPOINT_CSP]);
  return { ...response, headers };
}

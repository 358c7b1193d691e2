// Node-backed implementations of the stateless bridge primitives (URL parsing and setters,
// randomness; text decoding keeps state per realm: text-decoding.ts, and so does SubtleCrypto:
// webcrypto.ts). They receive copies and return copies; errors come back as data, never as host
// Error objects, so no host stack or path can reach guest code.

import { randomBytes as nodeRandomBytes } from 'node:crypto';
import {
  MAX_URL_INPUT_LENGTH,
  URL_COMPONENTS,
  type UrlComponent,
  type UrlRecord,
} from '../../sandbox-api/runtime/contract.ts';

const MAX_RANDOM_BYTES = 65_536;

const COMPONENTS: ReadonlySet<string> = new Set(URL_COMPONENTS);

function urlRecord(url: URL): UrlRecord {
  const { href, origin, protocol, username, password, host, hostname, port, pathname, search, hash } = url;
  return { href, origin, protocol, username, password, host, hostname, port, pathname, search, hash };
}

export function parseUrl(input: string, base: string | undefined): UrlRecord | null {
  if (typeof input !== 'string' || (base !== undefined && typeof base !== 'string')) return null;
  if (input.length + (base?.length ?? 0) > MAX_URL_INPUT_LENGTH) return null;
  const url = URL.parse(input, base);
  return url === null ? null : urlRecord(url);
}

/** Node's own WHATWG setter does the work: the spec's rules (ignored values included) exactly. */
export function setUrlComponent(href: string, component: UrlComponent, value: string): UrlRecord | null {
  if (
    typeof href !== 'string' ||
    typeof component !== 'string' ||
    typeof value !== 'string' ||
    !COMPONENTS.has(component)
  )
    return null;
  if (href.length + value.length > MAX_URL_INPUT_LENGTH) return null;
  const url = URL.parse(href);
  if (url === null) return null;
  url[component] = value;
  return urlRecord(url);
}

export function randomBytes(length: number): Uint8Array {
  const size = Math.max(0, Math.min(MAX_RANDOM_BYTES, Math.floor(Number(length) || 0)));
  return new Uint8Array(nodeRandomBytes(size));
}

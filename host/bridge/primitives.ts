// Node-backed implementations of the stateless bridge primitives (URL parsing, text decoding,
// randomness). They receive copies and return copies; errors come back as data,
// never as host Error objects, so no host stack or path can reach guest code.

import { randomBytes as nodeRandomBytes } from 'node:crypto';
import type { BridgeResult, UrlRecord } from '../../sandbox-api/runtime/contract.ts';

const MAX_RANDOM_BYTES = 65_536;

export function parseUrl(input: string, base: string | undefined): UrlRecord | null {
  if (typeof input !== 'string' || (base !== undefined && typeof base !== 'string')) return null;
  const url = URL.parse(input, base);
  if (url === null) return null;
  const { href, origin, protocol, username, password, host, hostname, port, pathname, search, hash } = url;
  return { href, origin, protocol, username, password, host, hostname, port, pathname, search, hash };
}

export function decodeText(bytes: Uint8Array, label: string, fatal: boolean, ignoreBOM: boolean): BridgeResult<string> {
  try {
    const decoder = new TextDecoder(String(label), { fatal: Boolean(fatal), ignoreBOM: Boolean(ignoreBOM) });
    return { ok: true, value: decoder.decode(bytes instanceof Uint8Array ? bytes : new Uint8Array(0)) };
  } catch (error) {
    const code = (error as { code?: string }).code === 'ERR_ENCODING_NOT_SUPPORTED' ? 'RangeError' : 'TypeError';
    return { ok: false, code, message: code === 'RangeError' ? `encoding "${label}" is not supported` : 'the data is not valid for this encoding' };
  }
}

export function randomBytes(length: number): Uint8Array {
  const size = Math.max(0, Math.min(MAX_RANDOM_BYTES, Math.floor(Number(length) || 0)));
  return new Uint8Array(nodeRandomBytes(size));
}

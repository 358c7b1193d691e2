// IP address text → bytes, and prefix matching on bytes, for the egress policy. Pure; parses
// every IPv6 spelling (compressed, embedded dotted quad, any case) so no form can slip past a
// check that compared text. Never resolves names: anything that is not an address is null.

import { isIP } from 'node:net';

export interface IpAddress {
  family: 4 | 6;
  /** 4 or 16 bytes, network order. */
  bytes: Uint8Array;
}

function parseV4(text: string): Uint8Array | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  const bytes = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    if (!/^\d{1,3}$/.test(parts[i])) return null;
    const value = Number(parts[i]);
    if (value > 255) return null;
    bytes[i] = value;
  }
  return bytes;
}

function parseV6(text: string): Uint8Array | null {
  let body = text.toLowerCase();
  const zone = body.indexOf('%');
  if (zone !== -1) body = body.slice(0, zone);
  const words: number[] = [];
  let tail: number[] = [];
  // A trailing dotted quad is two words.
  const lastColon = body.lastIndexOf(':');
  if (body.slice(lastColon + 1).includes('.')) {
    const v4 = parseV4(body.slice(lastColon + 1));
    if (v4 === null) return null;
    tail = [(v4[0] << 8) | v4[1], (v4[2] << 8) | v4[3]];
    body = body.slice(0, lastColon + 1);
    if (!body.endsWith('::')) body = body.slice(0, -1);
  }
  const halves = body.split('::');
  if (halves.length > 2) return null;
  const toWords = (part: string): number[] | null => {
    if (part === '') return [];
    const out: number[] = [];
    for (const word of part.split(':')) {
      if (!/^[0-9a-f]{1,4}$/.test(word)) return null;
      out.push(parseInt(word, 16));
    }
    return out;
  };
  const head = toWords(halves[0]);
  const rest = halves.length === 2 ? toWords(halves[1]) : [];
  if (head === null || rest === null) return null;
  const explicit = head.length + rest.length + tail.length;
  if (halves.length === 1 && explicit !== 8) return null;
  if (halves.length === 2 && explicit > 7) return null;
  words.push(...head, ...new Array(8 - explicit).fill(0), ...rest, ...tail);
  const bytes = new Uint8Array(16);
  words.forEach((word, i) => {
    bytes[2 * i] = word >> 8;
    bytes[2 * i + 1] = word & 255;
  });
  return bytes;
}

/** The address in `text` (brackets allowed around IPv6), or null when it is not an IP address. */
export function parseIp(text: string): IpAddress | null {
  const bare = text.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  if (family === 4) {
    const bytes = parseV4(bare);
    return bytes && { family: 4, bytes };
  }
  if (family === 6) {
    const bytes = parseV6(bare);
    return bytes && { family: 6, bytes };
  }
  return null;
}

/** Whether the first `prefix` bits of `address` equal those of `network` (same length). */
export function inPrefix(address: Uint8Array, network: Uint8Array, prefix: number): boolean {
  if (address.length !== network.length) return false;
  let bits = prefix;
  for (let i = 0; i < address.length && bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((address[i] & mask) !== (network[i] & mask)) return false;
  }
  return true;
}

export function formatIp(address: IpAddress): string {
  if (address.family === 4) return address.bytes.join('.');
  const words: string[] = [];
  for (let i = 0; i < 16; i += 2) words.push(((address.bytes[i] << 8) | address.bytes[i + 1]).toString(16));
  return words.join(':');
}

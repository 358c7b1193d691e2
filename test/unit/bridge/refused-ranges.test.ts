// Every range the "Refused destinations" table of docs/security.md names is refused by the egress policy: its
// first, last and an inner address, as a literal URL (before any DNS) and as a resolved address at
// connect time, and each IPv4 row also in every IPv6 spelling that embeds it. The addresses just
// outside an IPv4 row are public unless another row covers them, so a range cannot silently widen.
// Dropping or narrowing a range in host/bridge/egress-policy.ts fails this test.
import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { classifyAddress, createEgressPolicy } from '../../../host/bridge/egress-policy.ts';
import { formatIp, inPrefix, parseIp } from '../../../host/bridge/ip-address.ts';

interface Row {
  cidr: string;
  bytes: Uint8Array;
  prefix: number;
}

function documentedRows(): Row[] {
  const doc = readFileSync('docs/security.md', 'utf8');
  const start = doc.indexOf('### Refused destinations');
  if (start === -1) throw new Error('docs/security.md has no "### Refused destinations" heading');
  const rest = doc.slice(doc.indexOf('\n', start) + 1);
  const section = rest.slice(0, rest.search(/^#{1,6} /m));
  return [...section.matchAll(/^\| `([0-9a-f:.]+)\/(\d+)` \|/gm)].map(([, network, prefix]) => {
    const ip = parseIp(network);
    if (ip === null) throw new Error(`docs/security.md names ${network}, which is not an address`);
    return { cidr: `${network}/${prefix}`, bytes: ip.bytes, prefix: Number(prefix) };
  });
}

/**
 * The range's address at `offset` from its first (negative counts from past its last); big-endian arithmetic on bytes.
 */
function addressAt(row: Row, which: 'first' | 'last' | 'inside'): Uint8Array {
  const bytes = row.bytes.slice();
  const hostBits = bytes.length * 8 - row.prefix;
  for (let bit = 0; bit < hostBits; bit++) {
    const index = bytes.length - 1 - Math.floor(bit / 8);
    const mask = 1 << (bit % 8);
    // first: all host bits 0; last: all 1; inside: the top host bit 1, the lowest 1, the rest 0.
    const set = which === 'last' || (which === 'inside' && (bit === hostBits - 1 || bit === 0));
    bytes[index] = set ? bytes[index] | mask : bytes[index] & ~mask;
  }
  return bytes;
}

function step(bytes: Uint8Array, delta: 1 | -1): Uint8Array | null {
  const out = bytes.slice();
  for (let i = out.length - 1; i >= 0; i--) {
    const next = out[i] + delta;
    if (next >= 0 && next <= 255) {
      out[i] = next;
      return out;
    }
    out[i] = delta === 1 ? 0 : 255;
  }
  return null; // wrapped past the first or last address
}

const text = (bytes: Uint8Array) => formatIp({ family: bytes.length === 4 ? 4 : 6, bytes });
const v4 = (bytes: Uint8Array) => bytes.join('.');
const hex = (bytes: Uint8Array, at: number) => ((bytes[at] << 8) | bytes[at + 1]).toString(16);

/** Every IPv6 spelling of an IPv4 address that the policy must judge by that address. */
const embeddings = (bytes: Uint8Array): [string, string][] => [
  ['IPv4-mapped', `::ffff:${v4(bytes)}`],
  ['IPv4-mapped, hexadecimal', `::ffff:${hex(bytes, 0)}:${hex(bytes, 2)}`],
  ['IPv4-translated', `::ffff:0:${v4(bytes)}`],
  ['NAT64', `64:ff9b::${v4(bytes)}`],
  ['6to4', `2002:${hex(bytes, 0)}:${hex(bytes, 2)}::1`],
  ['IPv4-compatible', `::${v4(bytes)}`],
];

const ROWS = documentedRows();
const strict = createEgressPolicy({ allow: [] });
const urlOf = (address: string) => new URL(`http://${address.includes(':') ? `[${address}]` : address}:8080/`);

function expectRefused(address: string): void {
  expect(classifyAddress(address), `${address} is classified public`).not.toBeNull();
  expect(strict.checkUrl(urlOf(address)), `http://${address}/ passes the literal check`).toMatch(
    /not allowed by --allow-egress/,
  );
  expect(strict.checkAddress('resolved.test', address, 443), `${address} passes the connect-time check`).toMatch(
    /not allowed by --allow-egress/,
  );
}

describe('the refused destinations of docs/security.md', () => {
  it('are the table the policy is checked against (IPv4 and IPv6, the ranges named in the issue included)', () => {
    const cidrs = ROWS.map((row) => row.cidr);
    expect(cidrs.length).toBeGreaterThanOrEqual(25);
    expect(cidrs).toEqual(
      expect.arrayContaining([
        '198.18.0.0/15',
        '192.0.0.0/24',
        '192.88.99.0/24',
        '100::/64',
        '169.254.0.0/16',
        '127.0.0.0/8',
        '::1/128',
        'fc00::/7',
      ]),
    );
    for (const row of ROWS) expect(row.prefix, row.cidr).toBeLessThanOrEqual(row.bytes.length * 8);
  });

  describe.each(ROWS.map((row) => [row.cidr, row] as const))('%s', (_cidr, row) => {
    it.each(['first', 'inside', 'last'] as const)('refuses its %s address', (which) => {
      expectRefused(text(addressAt(row, which)));
    });

    if (row.bytes.length === 4) {
      it.each(embeddings(addressAt(row, 'inside')))('refuses an inner address written %s (%s)', (_kind, address) => {
        expectRefused(address);
      });

      it('accepts the public addresses just outside it', () => {
        const inAnyRow = (bytes: Uint8Array) =>
          ROWS.some((other) => other.bytes.length === 4 && inPrefix(bytes, other.bytes, other.prefix));
        for (const outside of [step(addressAt(row, 'first'), -1), step(addressAt(row, 'last'), 1)]) {
          if (outside === null || inAnyRow(outside)) continue;
          expect(classifyAddress(v4(outside)), v4(outside)).toBeNull();
        }
      });
    }
  });
});

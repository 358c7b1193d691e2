// Keeps host API tokens away from integrations' public endpoints: finds the values in a request's
// headers and URL that could be one (as sent, quoted or with anything around them, percent-encoded,
// base64-encoded as in `Basic`), asks the token store which really are, and refuses the request if
// any is. Never forwards, logs or echoes a token; reads no body.

import { HostError } from '../common/errors.ts';

/** Distinct token-shaped values one request may carry before it is refused without a lookup. */
export const MAX_TOKEN_CANDIDATES = 4;

/**
 * Where a host token starts, whatever surrounds it: an installation token (`iht_` and a 43-character
 * HMAC) or an integration token (`ihi_`, the integration's name in base64url, `.`, the HMAC).
 * A lookahead, so overlapping starts are all seen.
 */
const TOKEN_AT = /(?=(iht_[A-Za-z0-9_-]{43}|ihi_[A-Za-z0-9_-]{1,256}\.[A-Za-z0-9_-]{43}))/g;
/** A run long enough to be a token base64-encoded (47 bytes need 63 characters), either alphabet. */
const BASE64_RUN = /[A-Za-z0-9+/_-]{60,}/g;
const PERCENT = /%([0-9A-Fa-f]{2})/g;
const HAS_PERCENT = /%[0-9A-Fa-f]{2}/;
/** Percent-decoding rounds: a value encoded twice is still found. */
const PERCENT_ROUNDS = 3;

/** The text itself and its percent-decodings (each round on the last), as byte-wise Latin-1. */
function percentViews(text: string): string[] {
  const views = [text];
  for (let round = 0; round < PERCENT_ROUNDS && HAS_PERCENT.test(views[views.length - 1]); round++) {
    views.push(views[views.length - 1].replace(PERCENT, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))));
  }
  return views;
}

/**
 * The base64 characters a token's prefix always encodes to, one per byte alignment (0, 1 or 2
 * bytes before it in a group): only a run holding one of them can decode to a token, so the
 * others (JWTs, long cookies, OAuth codes) are never decoded.
 */
const PREFIX_FRAGMENTS = ['iht_', 'ihi_'].flatMap((prefix) =>
  [0, 1, 2].map((lead) => {
    const encoded = Buffer.concat([Buffer.alloc(lead), Buffer.from(prefix, 'latin1')]).toString('base64');
    // Characters whose six bits all come from the prefix's bytes.
    const first = Math.ceil((lead * 8) / 6);
    const end = Math.floor(((lead + prefix.length) * 8) / 6);
    return encoded.slice(first, end);
  }),
);

/** The base64 decodings of every long run in `text` that could hold a token, at each of the four alignments. */
function base64Views(text: string): string[] {
  const views: string[] = [];
  for (const [run] of text.matchAll(BASE64_RUN)) {
    if (!PREFIX_FRAGMENTS.some((fragment) => run.includes(fragment))) continue;
    for (let offset = 0; offset < 4; offset++) views.push(Buffer.from(run.slice(offset), 'base64').toString('latin1'));
  }
  return views;
}

function mayHoldToken(text: string): boolean {
  return text.includes('iht_') || text.includes('ihi_');
}

/** Every distinct value in `texts` that has a host token's shape, however it was encoded. */
export function tokenCandidates(texts: Iterable<string>): Set<string> {
  const found = new Set<string>();
  for (const text of texts) {
    for (const view of percentViews(text)) {
      for (const plain of [view, ...base64Views(view)]) {
        if (!mayHoldToken(plain)) continue;
        for (const match of plain.matchAll(TOKEN_AT)) found.add(match[1]);
      }
    }
  }
  return found;
}

export interface GuardedRequest {
  /** Header pairs as the integration would receive them. */
  headers: [string, string][];
  /** The request target (path and query) as the integration would receive it. */
  target: string;
}

/**
 * Throws `ERR_BAD_REQUEST` naming where (a header's name, or the URL) if the request carries a
 * token `isHostToken` recognises, or more token-shaped values than any real request needs.
 */
export async function refuseHostTokens(
  request: GuardedRequest,
  isHostToken: (token: string) => Promise<boolean>,
): Promise<void> {
  const places: [where: string, candidates: Set<string>][] = [
    ['its URL', tokenCandidates([request.target])],
    ...request.headers.map(([name, value]): [string, Set<string>] => {
      // A name that could hold a token is never shown.
      const inName = tokenCandidates([name]);
      return inName.size > 0
        ? ['a header (its name)', new Set([...inName, ...tokenCandidates([value])])]
        : [`its "${name}" header`, tokenCandidates([value])];
    }),
  ];
  const total = new Set(places.flatMap(([, candidates]) => [...candidates]));
  if (total.size === 0) return;
  if (total.size > MAX_TOKEN_CANDIDATES) {
    throw new HostError(
      'ERR_BAD_REQUEST',
      `the request carries ${total.size} values shaped like host API tokens (more ` +
        `than ${MAX_TOKEN_CANDIDATES}); a public endpoint never receives one`,
    );
  }
  for (const candidate of total) {
    if (!(await isHostToken(candidate))) continue;
    const where = places.find(([, candidates]) => candidates.has(candidate))![0];
    throw new HostError(
      'ERR_BAD_REQUEST',
      `the request carries a host API token in ${where}: an integration's public endpoint never receives one. ` +
        'To call the API, send the token alone as "Authorization: ' +
        'Bearer <token>"; otherwise remove it from the request',
    );
  }
}

// Builds the `fetch` event of docs/authoring.md from an incoming public-endpoint request. Pure over the
// request line and raw headers; must never read the body nor keep connection-level headers.

import type { IncomingMessage } from 'node:http';
import { connectionTokens, isHopByHop } from './hop-by-hop.ts';

export interface FetchEvent {
  type: 'fetch';
  installationId: string;
  request: { method: string; url: string; headers: [string, string][] };
  [field: string]: unknown;
}

/** Raw header pairs as received (order and repeats kept), names lower-cased, hop-by-hop dropped. */
function forwardedHeaders(req: IncomingMessage): [string, string][] {
  const listed = connectionTokens(req.headers.connection);
  const headers: [string, string][] = [];
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i].toLowerCase();
    if (!isHopByHop(name, listed)) headers.push([name, req.rawHeaders[i + 1]]);
  }
  return headers;
}

/** `baseUrl` is the host's public origin; `originalUrl` the request target as received (path + query). */
export function buildFetchEvent(
  installationId: string,
  req: IncomingMessage,
  baseUrl: string,
  originalUrl: string,
): FetchEvent {
  return {
    type: 'fetch',
    installationId,
    request: {
      method: req.method ?? 'GET',
      url: `${baseUrl.replace(/\/+$/, '')}${originalUrl}`,
      headers: forwardedHeaders(req),
    },
  };
}

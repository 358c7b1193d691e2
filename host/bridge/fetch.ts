// Host side of guest `fetch`: performs one guest request through the egress policy with
// node:http(s), checking every resolved address at connect time, following redirects by hand
// (each hop re-checked), capping time and decompressed bytes. Never throws: failures are data.

import http from 'node:http';
import https from 'node:https';
import dns from 'node:dns';
import zlib from 'node:zlib';
import type { LookupFunction } from 'node:net';
import type { BridgeRequest, BridgeResponse, BridgeResult } from '../../sandbox-api/runtime/contract.ts';
import type { EgressPolicy } from './egress-policy.ts';
import { EgressRefusal as Refusal, checkedLookupFor, type ConnectAudit } from './egress-connect.ts';

export interface FetchBridgeOptions {
  policy: EgressPolicy;
  /** One deadline for the whole fetch: DNS, every redirect hop, headers and body. */
  timeoutMs: number;
  maxResponseBytes: number;
  maxRedirects: number;
  /** DNS lookup used at connect time; injectable so tests can answer any address without traffic. */
  lookup?: LookupFunction;
  /** Called with every refusal, for the host log. */
  onRefusal?: (url: string, reason: string) => void;
  /** Told every address:port a socket is pointed at (the connect audit). */
  onConnect?: ConnectAudit;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const CROSS_ORIGIN_STRIPPED = new Set(['authorization', 'cookie', 'proxy-authorization']);
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'proxy-connection']);
/** Request headers the host sets itself: a guest `host` could reach another virtual host behind an allowed address. */
const HOST_SET = new Set(['host', 'content-length', 'expect']);

function decodedStream(response: http.IncomingMessage): NodeJS.ReadableStream & { destroy(): void } {
  const encoding = String(response.headers['content-encoding'] ?? '').trim().toLowerCase();
  if (encoding === 'gzip' || encoding === 'x-gzip') return response.pipe(zlib.createGunzip());
  if (encoding === 'deflate') return response.pipe(zlib.createInflate());
  if (encoding === 'br') return response.pipe(zlib.createBrotliDecompress());
  return response;
}

interface Hop {
  status: number;
  statusText: string;
  headers: [string, string][];
  body: Uint8Array;
  location: string | null;
}

function requestOnce(url: URL, request: BridgeRequest, body: Uint8Array | null, options: FetchBridgeOptions, lookup: LookupFunction, remainingMs: number): Promise<Hop> {
  return new Promise((resolve, reject) => {
    const transport = url.protocol === 'https:' ? https : http;
    const headers: Record<string, string> = {};
    for (const [name, value] of request.headers) {
      const lower = name.toLowerCase();
      if (!HOP_BY_HOP.has(lower) && !HOST_SET.has(lower)) headers[name] = value;
    }
    if (!Object.keys(headers).some((name) => name.toLowerCase() === 'accept-encoding')) headers['accept-encoding'] = 'gzip, deflate, br';
    const outgoing = transport.request(url, { method: request.method, headers, lookup, agent: false });
    let stream: (NodeJS.ReadableStream & { destroy(): void }) | null = null;
    let settled = false;
    // Whatever ends the hop first (an error, the cap, the deadline, the end) settles it once and
    // tears everything down: a piped decompressor does not forward its source's errors by itself.
    const finish = (error: Error | null, hop?: Hop) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error !== null) {
        stream?.destroy();
        outgoing.destroy();
        reject(error);
      } else resolve(hop!);
    };
    const timer = setTimeout(() => finish(new Error(`timed out after ${options.timeoutMs} ms`)), Math.max(0, remainingMs));
    outgoing.on('error', (error) => finish(error));
    outgoing.on('response', (response) => {
      const status = response.statusCode ?? 0;
      const location = REDIRECT_STATUSES.has(status) ? (response.headers.location ?? null) : null;
      const pairs: [string, string][] = [];
      const raw = response.rawHeaders;
      const decoded = response.headers['content-encoding'] !== undefined;
      for (let i = 0; i < raw.length; i += 2) {
        const name = raw[i].toLowerCase();
        if (HOP_BY_HOP.has(name) || (decoded && (name === 'content-encoding' || name === 'content-length'))) continue;
        pairs.push([name, raw[i + 1]]);
      }
      const chunks: Buffer[] = [];
      let total = 0;
      stream = decodedStream(response);
      response.on('error', (error) => finish(error));
      response.on('aborted', () => finish(new Error('the connection closed before the response ended')));
      stream.on('data', (chunk: Buffer) => {
        total += chunk.length;
        if (total > options.maxResponseBytes) return finish(new Refusal(`response body exceeds ${options.maxResponseBytes} bytes`));
        chunks.push(chunk);
      });
      stream.on('error', (error: Error) => finish(error));
      stream.on('end', () => finish(null, { status, statusText: response.statusMessage ?? '', headers: pairs, body: new Uint8Array(Buffer.concat(chunks)), location }));
    });
    if (body !== null && body.length > 0) outgoing.end(Buffer.from(body.buffer, body.byteOffset, body.byteLength));
    else outgoing.end();
  });
}

export async function performFetch(request: BridgeRequest, options: FetchBridgeOptions): Promise<BridgeResult<BridgeResponse>> {
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return { ok: false, code: 'TypeError', message: `invalid URL "${request.url}"` };
  }
  let method = String(request.method || 'GET').toUpperCase();
  let body = request.body;
  let headers = request.headers;
  const refusals: string[] = [];
  const lookup = options.lookup ?? (dns.lookup as LookupFunction);
  const deadline = performance.now() + options.timeoutMs;
  const remaining = () => deadline - performance.now();
  try {
    for (let hop = 0; ; hop++) {
      const pinned = await withDeadline(checkedLookupFor(url, options.policy, { lookup, refusals, audit: options.onConnect }), remaining(), options.timeoutMs);
      const result = await requestOnce(url, { ...request, method, headers }, body, options, pinned, remaining());
      if (result.location === null || request.redirect === 'manual') {
        return { ok: true, value: { status: result.status, statusText: result.statusText, headers: result.headers, body: result.body, url: url.href, redirected: hop > 0 } };
      }
      if (request.redirect === 'error') throw new Refusal('redirect encountered with redirect mode "error"');
      if (hop >= options.maxRedirects) throw new Refusal(`more than ${options.maxRedirects} redirects`);
      const next = new URL(result.location, url);
      // As the Fetch standard does: credentials never follow a redirect to another origin.
      if (next.origin !== url.origin) headers = headers.filter(([name]) => !CROSS_ORIGIN_STRIPPED.has(name.toLowerCase()));
      url = next;
      if (result.status === 303 || ((result.status === 301 || result.status === 302) && method === 'POST')) {
        method = 'GET';
        body = null;
      }
    }
  } catch (error) {
    const message = error instanceof Refusal ? error.message : describeNetworkError(error);
    if (error instanceof Refusal) options.onRefusal?.(request.url, message);
    return { ok: false, code: 'TypeError', message };
  }
}

/** DNS cannot be cancelled, but the guest stops waiting for it at the fetch deadline. */
function withDeadline<T>(work: Promise<T>, remainingMs: number, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms`)), Math.max(0, remainingMs));
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}

function describeNetworkError(error: unknown): string {
  const code = (error as { code?: string }).code;
  const message = error instanceof Error ? error.message : String(error);
  // Keep only the network-level reason: never a host stack or file path.
  return code ? `${code}: ${message.split('\n')[0]}` : message.split('\n')[0];
}

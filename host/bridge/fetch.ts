// Host side of guest `fetch`: performs one guest request through the egress policy with
// node:http(s), checking every resolved address at connect time, following redirects by hand
// (each hop re-checked), capping time and decompressed bytes; the body whole, or handed on as it
// arrives (fetch-body.ts). Never throws: failures are data.

import http from 'node:http';
import https from 'node:https';
import dns from 'node:dns';
import zlib from 'node:zlib';
import type { LookupFunction } from 'node:net';
import type { Readable } from 'node:stream';
import type { BridgeRequest, BridgeResponse, BridgeResult } from '../../sandbox-api/runtime/contract.ts';
import type { EgressPolicy } from './egress-policy.ts';
import { EgressRefusal as Refusal, checkedLookupFor, type ConnectAudit } from './egress-connect.ts';
import { concatBytes } from '../common/concat-bytes.ts';
import { FetchBody } from './fetch-body.ts';

/** Redirects a guest fetch follows (docs/limits.md): this many succeed, one more is refused. */
export const MAX_FETCH_REDIRECTS = 5;

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
  /**
   * Hand the body on as it arrives (FetchOutcome.rest) instead of whole; `timeoutMs` then bounds each wait for more.
   */
  streaming?: boolean;
  /** Aborts the request until its head arrived (afterwards, cancel its FetchBody). */
  signal?: AbortSignal;
}

/** The guest aborted its own fetch: not a refusal of the egress policy, so not counted as one. */
class Aborted extends Error {}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const CROSS_ORIGIN_STRIPPED = new Set(['authorization', 'cookie', 'proxy-authorization']);
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
  'proxy-connection',
]);
/** Request headers the host sets itself: a guest `host` could reach another virtual host behind an allowed address. */
const HOST_SET = new Set(['host', 'content-length', 'expect']);

function decodedStream(response: http.IncomingMessage): Readable {
  const encoding = String(response.headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
  if (encoding === 'gzip' || encoding === 'x-gzip') return response.pipe(zlib.createGunzip());
  if (encoding === 'deflate') return response.pipe(zlib.createInflate());
  if (encoding === 'br') return response.pipe(zlib.createBrotliDecompress());
  return response;
}

interface Hop {
  status: number;
  statusText: string;
  headers: [string, string][];
  body: FetchBody;
  location: string | null;
}

function requestOnce(
  url: URL,
  request: BridgeRequest,
  body: Uint8Array | null,
  options: FetchBridgeOptions,
  lookup: LookupFunction,
  remainingMs: number,
): Promise<Hop> {
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) return reject(new Aborted('the request was aborted'));
    const transport = url.protocol === 'https:' ? https : http;
    const headers: Record<string, string> = {};
    for (const [name, value] of request.headers) {
      const lower = name.toLowerCase();
      if (!HOP_BY_HOP.has(lower) && !HOST_SET.has(lower)) headers[name] = value;
    }
    if (!Object.keys(headers).some((name) => name.toLowerCase() === 'accept-encoding'))
      headers['accept-encoding'] = 'gzip, deflate, br';
    const outgoing = transport.request(url, { method: request.method, headers, lookup, agent: false });
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    // Until the head arrives, whatever ends the hop first (an error, the deadline, an abort)
    // settles it once and closes the connection; after it, the body (FetchBody) owns the connection.
    // The error listener comes first and stays: an error after settling must never go unheard
    // (an 'error' event without a listener ends the worker process).
    outgoing.on('error', (error) => finish(error));
    const finish = (error: Error | null, hop?: Hop) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', aborted);
      if (error !== null) {
        outgoing.destroy();
        reject(error);
      } else resolve(hop!);
    };
    const aborted = () => finish(new Aborted('the request was aborted'));
    options.signal?.addEventListener('abort', aborted, { once: true });
    timer = setTimeout(() => finish(new Error(`timed out after ${options.timeoutMs} ms`)), Math.max(0, remainingMs));
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
      const stream = decodedStream(response);
      // A piped decompressor does not forward its source's errors by itself.
      if (stream !== response) response.on('error', (error) => stream.destroy(error));
      response.on('aborted', () => stream.destroy(new Error('the connection closed before the response ended')));
      const fetched = new FetchBody(stream, {
        maxBytes: options.maxResponseBytes,
        idleTimeoutMs: options.timeoutMs,
        destroy: () => {
          response.destroy();
          outgoing.destroy();
        },
      });
      finish(null, { status, statusText: response.statusMessage ?? '', headers: pairs, body: fetched, location });
    });
    if (body !== null && body.length > 0) outgoing.end(Buffer.from(body.buffer, body.byteOffset, body.byteLength));
    else outgoing.end();
  });
}

/** A response whose body may go on at the host: `rest` reads it (BridgeResponse.more is then set). */
export type FetchOutcome = BridgeResult<BridgeResponse> & { rest?: FetchBody };

/** Waits for the whole body within what is left of the deadline (cancelling it past that). */
async function wholeBody(body: FetchBody, remainingMs: number, timeoutMs: number): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  const timer = setTimeout(() => body.cancel(), Math.max(0, remainingMs));
  try {
    for (;;) {
      const read = await body.read();
      if (!read.ok)
        throw new Refusal(
          body.failed === 'the response body was cancelled' ? `timed out after ${timeoutMs} ms` : read.message,
        );
      if (read.value === null) break;
      chunks.push(read.value);
    }
  } finally {
    clearTimeout(timer);
  }
  return concatBytes(chunks);
}

/**
 * The answer to a guest: with `options.streaming`, the head as soon as it is here and the body
 * whole only if it ended by the next turn of the event loop (else `rest` reads it on); without, the
 * whole body within the deadline.
 */
async function answerOf(
  hop: Hop,
  url: URL,
  redirected: boolean,
  options: FetchBridgeOptions,
  remainingMs: number,
): Promise<FetchOutcome> {
  const head = { status: hop.status, statusText: hop.statusText, headers: hop.headers, url: url.href, redirected };
  if (options.streaming === true) {
    await new Promise((resolve) => setImmediate(resolve));
    if (!hop.body.complete)
      return { ok: true, value: { ...head, body: new Uint8Array(0), more: true }, rest: hop.body };
    return { ok: true, value: { ...head, body: hop.body.takeAll() } };
  }
  return { ok: true, value: { ...head, body: await wholeBody(hop.body, remainingMs, options.timeoutMs) } };
}

export async function performFetch(request: BridgeRequest, options: FetchBridgeOptions): Promise<FetchOutcome> {
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
      const pinned = await withDeadline(
        checkedLookupFor(url, options.policy, { lookup, refusals, audit: options.onConnect }),
        remaining(),
        options.timeoutMs,
      );
      const result = await requestOnce(url, { ...request, method, headers }, body, options, pinned, remaining());
      if (result.location === null || request.redirect === 'manual')
        return await answerOf(result, url, hop > 0, options, remaining());
      // A redirect's own body is never read.
      result.body.cancel();
      if (request.redirect === 'error') throw new Refusal('redirect encountered with redirect mode "error"');
      if (hop >= options.maxRedirects) throw new Refusal(`more than ${options.maxRedirects} redirects`);
      const next = new URL(result.location, url);
      // As the Fetch standard does: credentials never follow a redirect to another origin.
      if (next.origin !== url.origin)
        headers = headers.filter(([name]) => !CROSS_ORIGIN_STRIPPED.has(name.toLowerCase()));
      url = next;
      if (result.status === 303 || ((result.status === 301 || result.status === 302) && method === 'POST')) {
        method = 'GET';
        body = null;
      }
    }
  } catch (error) {
    const message = error instanceof Refusal || error instanceof Aborted ? error.message : describeNetworkError(error);
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

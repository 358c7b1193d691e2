// Writes an integration's serialized Response to the client as is: status, status text, headers,
// body bytes, or its body stream as it arrives. Must never add a content-type of its own, nor let
// connection-level or internal headers (hop-by-hop, content-length) through.

import { Readable } from 'node:stream';
import type { Context } from 'koa';
import { HostError } from '../common/errors.ts';
import type { SandboxResponse } from '../../sandbox-api/runtime/contract.ts';
import { isHopByHop } from './hop-by-hop.ts';

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// What Node accepts in a header value / reason phrase (no CR, LF or other controls but tab).
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

function badResponse(what: string): HostError {
  return new HostError('ERR_SANDBOX_BAD_RESPONSE', `the integration returned ${what}`);
}

/** Lower-case name → values, in order, minus what must not cross the host. */
function responseHeaders(response: SandboxResponse): Map<string, string[]> {
  const headers = new Map<string, string[]>();
  for (const [rawName, value] of response.headers) {
    const name = String(rawName).toLowerCase();
    if (isHopByHop(name) || name === 'content-length') continue;
    if (!TOKEN.test(name)) throw badResponse(`an invalid header name "${name}"`);
    if (typeof value !== 'string' || !FIELD_VALUE.test(value))
      throw badResponse(`an invalid value for header "${name}"`);
    // A body has one media type; the runtime's Headers joins repeated values into one, so two
    // entries mean a broken serialization, refused like any other bad answer (never a 500).
    if (name === 'content-type' && headers.has(name)) throw badResponse('more than one content-type header');
    headers.set(name, [...(headers.get(name) ?? []), value]);
  }
  return headers;
}

export function bodyBuffer(response: SandboxResponse): Buffer {
  const body = response.body as unknown;
  if (!(body instanceof Uint8Array)) throw badResponse('a body that is not bytes');
  return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}

/** An integration's answer, checked: what may be written to the client, nothing else. */
export interface CheckedResponse {
  status: number;
  /** The reason phrase the integration gave ('' or absent: the standard one). */
  statusText: string | undefined;
  /** Lower-case name → values, in the integration's order. */
  headers: Map<string, string[]>;
  body: Buffer;
  /** The body as it is produced, instead of `body` (then empty). */
  stream?: AsyncIterable<Uint8Array> & { cancel(): void };
}

/** Statuses whose answer has no body (Koa's `statuses.empty`); a stream for one is cancelled unread. */
export const EMPTY_STATUSES = new Set([204, 205, 304]);

/**
 * A stream body as a Node Readable, pulled as the socket takes it. Destroying it (the client left)
 * cancels the stream at once, even while a chunk is awaited (an async generator would only see
 * its return() once that chunk came).
 */
export function readableOf(stream: AsyncIterable<Uint8Array> & { cancel(): void }): Readable {
  const chunks = stream[Symbol.asyncIterator]();
  return new Readable({
    read() {
      chunks.next().then(
        ({ done, value }) => {
          if (!this.destroyed) this.push(done ? null : value);
        },
        (error: unknown) => this.destroy(error instanceof Error ? error : new Error('the response body failed')),
      );
    },
    destroy(error, callback) {
      stream.cancel();
      callback(error);
    },
  });
}

/** Validates everything before anything is written, so a failure leaves nothing half-written. */
export function checkSandboxResponse(
  response: SandboxResponse & { stream?: CheckedResponse['stream'] },
): CheckedResponse {
  const { status, statusText } = response;
  try {
    if (!Number.isInteger(status) || status < 200 || status > 599)
      throw badResponse(`an invalid status ${String(status)}`);
    if (statusText !== undefined && (typeof statusText !== 'string' || !FIELD_VALUE.test(statusText))) {
      throw badResponse('an invalid status text');
    }
    const checked: CheckedResponse = {
      status,
      statusText,
      headers: responseHeaders(response),
      body: bodyBuffer(response),
    };
    if (response.stream !== undefined) checked.stream = response.stream;
    return checked;
  } catch (error) {
    // Refused before anything was written: the integration stops producing the body too.
    response.stream?.cancel();
    throw error;
  }
}

export function sendSandboxResponse(
  ctx: Context,
  response: SandboxResponse & { stream?: CheckedResponse['stream'] },
): void {
  const { status, statusText, headers, body, stream } = checkSandboxResponse(response);
  ctx.status = status;
  if (statusText) ctx.message = statusText;
  for (const [name, values] of headers) ctx.set(name, values.length === 1 ? values[0] : values);
  if (stream !== undefined && (EMPTY_STATUSES.has(status) || ctx.method === 'HEAD')) stream.cancel();
  if (stream !== undefined && !EMPTY_STATUSES.has(status) && ctx.method !== 'HEAD') {
    const readable = readableOf(stream);
    // Koa leaves a response whose body stream fails after its head half-written: cut it instead,
    // so the client sees an incomplete answer rather than waiting for the rest.
    readable.once('error', () => ctx.res.destroy());
    ctx.body = readable;
  } else ctx.body = body;
  // Koa labels a Buffer body application/octet-stream when no type is set; the integration's
  // absence of a content-type is part of its response, so take Koa's guess back out.
  if (!headers.has('content-type')) ctx.remove('Content-Type');
}

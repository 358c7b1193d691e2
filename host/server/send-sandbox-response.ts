// Writes an integration's serialized Response to the client as is: status, status text, headers,
// body bytes. Must never add a content-type of its own, nor let connection-level or internal
// headers (hop-by-hop, content-length) through.

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
    if (typeof value !== 'string' || !FIELD_VALUE.test(value)) throw badResponse(`an invalid value for header "${name}"`);
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
}

/** Validates everything before anything is written, so a failure leaves nothing half-written. */
export function checkSandboxResponse(response: SandboxResponse): CheckedResponse {
  const { status, statusText } = response;
  if (!Number.isInteger(status) || status < 200 || status > 599) throw badResponse(`an invalid status ${String(status)}`);
  if (statusText !== undefined && (typeof statusText !== 'string' || !FIELD_VALUE.test(statusText))) {
    throw badResponse('an invalid status text');
  }
  return { status, statusText, headers: responseHeaders(response), body: bodyBuffer(response) };
}

export function sendSandboxResponse(ctx: Context, response: SandboxResponse): void {
  const { status, statusText, headers, body } = checkSandboxResponse(response);
  ctx.status = status;
  if (statusText) ctx.message = statusText;
  for (const [name, values] of headers) ctx.set(name, values.length === 1 ? values[0] : values);
  ctx.body = body;
  // Koa labels a Buffer body application/octet-stream when no type is set; the integration's
  // absence of a content-type is part of its response, so take Koa's guess back out.
  if (!headers.has('content-type')) ctx.remove('Content-Type');
}

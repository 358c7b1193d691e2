// Checks what the isolate returned before the host trusts it: a guest controls the runtime it
// runs in, so the copied response may be anything. Pure; returns the response or a reason, and
// decodes the runtime's compact answer (WireAnswer) without trusting its shape either.

import type { RuntimeVerdict, SandboxResponse, StreamedBody } from '../../sandbox-api/runtime/contract.ts';
import { isOwnBytes } from '../bridge/own-bytes.ts';

const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const HEADER_VALUE_FORBIDDEN = /[\0\r\n]/;
const MAX_HEADERS = 200;
const VERDICTS: ReadonlySet<unknown> = new Set<RuntimeVerdict>([
  'no-handler',
  'component-not-found',
  'guest-error',
  'bad-entry',
]);

export function validateSandboxResponse(value: unknown, maxBodyBytes: number): SandboxResponse | string {
  if (typeof value !== 'object' || value === null) return 'the integration returned no response';
  const { status, statusText, headers, body, verdict } = value as Record<string, unknown>;
  if (!Number.isInteger(status) || (status as number) < 200 || (status as number) > 599) {
    return `the integration returned an invalid status ${JSON.stringify(status)}`;
  }
  if (!Array.isArray(headers) || headers.length > MAX_HEADERS) return 'the integration returned invalid headers';
  for (const pair of headers) {
    if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== 'string' || typeof pair[1] !== 'string') {
      return 'the integration returned invalid headers';
    }
    if (!HEADER_NAME.test(pair[0]))
      return `the integration returned an invalid header name ${JSON.stringify(pair[0].slice(0, 64))}`;
    if (HEADER_VALUE_FORBIDDEN.test(pair[1]))
      return `the integration returned an invalid value for header "${pair[0]}"`;
  }
  if (!isOwnBytes(body)) return 'the integration returned an invalid body';
  if (body.byteLength > maxBodyBytes) return `the integration's response body exceeds ${maxBodyBytes} bytes`;
  const text =
    typeof statusText === 'string' && !HEADER_VALUE_FORBIDDEN.test(statusText) ? statusText.slice(0, 256) : undefined;
  // Only the runtime's known verdicts mean something to the host; anything else is dropped.
  const known = VERDICTS.has(verdict) ? { verdict: verdict as RuntimeVerdict } : {};
  return {
    status: status as number,
    ...(text ? { statusText: text } : {}),
    headers: headers as [string, string][],
    body,
    ...known,
  };
}

/**
 * The object a WireAnswer stands for (`[JSON text of everything but the body, body bytes]`), still
 * unchecked: anything malformed decodes to something validateSandboxResponse refuses.
 */
export function decodeWireAnswer(value: unknown): unknown {
  if (!Array.isArray(value) || value.length !== 2 || typeof value[0] !== 'string') return null;
  let meta: unknown;
  try {
    meta = JSON.parse(value[0]);
  } catch {
    return null;
  }
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) return null;
  return { ...meta, body: value[1] };
}

/**
 * The answer's StreamedBody (its body follows), or null when it has none; a malformed one is a
 * reason, as for any bad answer. Only its shape is checked here: the ids mean something only to
 * the isolate that gave them (a wrong one reads nothing).
 */
export function streamedBodyOf(value: unknown): StreamedBody | null | string {
  const streamed = typeof value === 'object' && value !== null ? (value as { streamed?: unknown }).streamed : undefined;
  if (streamed === undefined) return null;
  if (typeof streamed !== 'object' || streamed === null) return 'the integration returned an invalid body stream';
  const { kind, id } = streamed as Record<string, unknown>;
  if ((kind !== 'runtime' && kind !== 'fetch') || typeof id !== 'number' || !Number.isSafeInteger(id) || id <= 0) {
    return 'the integration returned an invalid body stream';
  }
  return { kind, id };
}

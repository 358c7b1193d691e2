// The second authoring path: an integration whose default export is a module worker
// `{ fetch(request, env, ctx) }` (what @gitbook/runtime's createIntegration() returns, or anything
// else of that shape). Each envelope becomes the seed's wire form, `POST <origin>/v1` as
// multipart/form-data with string parts `event` and `environment` and, when there is a body, a
// file part `fetch-body` carrying its exact bytes. Pure: no bridge; the dispatcher calls fetch().
import { File } from './blob.ts';
import type { Envelope, SandboxEvent } from './contract.ts';
import { encodeMultipart } from './multipart.ts';

/** A default export the runtime runs as a module worker: an object (or function) with a `fetch` method. */
export function isModuleWorker(value: unknown): value is { fetch: (...args: unknown[]) => unknown } {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return false;
  try {
    return typeof (value as { fetch?: unknown }).fetch === 'function';
  } catch {
    return false; // a throwing getter is not a handler
  }
}

/** The origin of the platform API endpoint the envelope carries (the host's own), for the request URL. */
function originOf(environment: Record<string, unknown>): string {
  const endpoint = environment.apiEndpoint;
  if (typeof endpoint === 'string') {
    const match = /^(https?:\/\/[^/?#]+)/i.exec(endpoint);
    if (match !== null) return match[1];
  }
  return 'http://localhost';
}

/** Methods GitBook's FetchRequest spells in lower case; `new Request()` upper-cases exactly these again. */
const LOWER_CASE_METHODS = new Set(['GET', 'POST', 'PUT', 'DELETE']);

/**
 * The event as GitBook's JSON has it: a fetch event's headers as one object (repeated names joined
 * with ", ") and its method in lower case when GitBook's FetchRequest lists it (get, post, put,
 * delete; others, such as PATCH, stay as they are, which `new Request()` keeps).
 */
export function wireEvent(event: SandboxEvent): Record<string, unknown> {
  const request = event.request;
  if (request === undefined || !Array.isArray(request.headers)) return event;
  const headers: Record<string, string> = {};
  for (const [name, value] of request.headers)
    headers[name] = Object.hasOwn(headers, name) ? `${headers[name]}, ${value}` : value;
  const method = LOWER_CASE_METHODS.has(request.method.toUpperCase()) ? request.method.toLowerCase() : request.method;
  return { ...event, request: { ...request, method, headers } };
}

/** A GET or HEAD fetch event carries no `fetch-body` part at all (even an empty one would make its Request invalid). */
function bodyOf(envelope: Envelope): Uint8Array | null {
  const body = envelope.fetchBody;
  if (body === null || body === undefined) return null;
  const method = String(envelope.event.request?.method ?? '').toUpperCase();
  return envelope.event.type === 'fetch' && (method === 'GET' || method === 'HEAD') ? null : body;
}

/** The constructor arguments of the module worker's Request for one envelope. */
export function moduleWorkerRequest(envelope: Envelope): {
  url: string;
  init: { method: 'POST'; headers: Record<string, string>; body: Uint8Array };
} {
  const parts: [string, string | File][] = [
    ['event', JSON.stringify(wireEvent(envelope.event))],
    ['environment', JSON.stringify(envelope.environment ?? {})],
  ];
  const body = bodyOf(envelope);
  // A file part, so the bytes stay exact (no UTF-8 decoding) and the handler gets a File back.
  if (body !== null) parts.push(['fetch-body', new File([body], 'fetch-body')]);
  const { bytes, contentType } = encodeMultipart(parts, { fileTypes: 'exact' });
  return {
    url: `${originOf(envelope.environment ?? {})}/v1`,
    init: { method: 'POST', headers: { 'content-type': contentType }, body: bytes },
  };
}

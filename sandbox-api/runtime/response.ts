// The isolate's Response class (Fetch standard) plus the runtime-only ways to make one: fetched
// responses (immutable headers, url, redirected, a body still at the host) and serialization to
// SandboxResponse, whose body is bytes or, when it is a stream, sent on as it is produced.
import {
  BodyCarrier,
  bindBodyHeaders,
  bodyStateOf,
  cloneBody,
  emptyBody,
  extractBody,
  isNullBody,
  isUnusable,
  type BodyState,
} from './body.ts';
import type { BridgeResponse, SandboxResponse } from './contract.ts';
import type { HostBodySource } from './modules/streams.ts';
import { Headers, crossingHeaderPairs, setHeadersGuard, type HeadersInit } from './headers.ts';
import type { ParseUrl } from './url.ts';
import { utf8Encode } from './utf8.ts';

export type ResponseType = 'default' | 'basic' | 'error';

export interface ResponseInit {
  status?: number;
  statusText?: string;
  headers?: HeadersInit;
}

const NULL_BODY_STATUSES = [101, 103, 204, 205, 304];
/** A reason phrase is a few words; the worker keeps 256 characters, so no more crosses. */
const MAX_STATUS_TEXT_LENGTH = 256;
const REDIRECT_STATUSES = [301, 302, 303, 307, 308];

/** WebIDL `unsigned short` conversion, as the Fetch standard's ResponseInit.status uses. */
function toUnsignedShort(value: unknown): number {
  const number = Number(value);
  if (!Number.isFinite(number)) return 0;
  return ((Math.trunc(number) % 65536) + 65536) % 65536;
}

interface ResponseFields {
  status: number;
  statusText: string;
  type: ResponseType;
  url: string;
  redirected: boolean;
}

export function createResponseClass(parseUrl: ParseUrl) {
  let fieldsOf: (response: Response) => ResponseFields;
  let isResponse: (value: unknown) => value is Response;
  let headersOf: (response: Response) => Headers;

  class Response extends BodyCarrier {
    #fields: ResponseFields;
    #headers: Headers;

    static {
      fieldsOf = (response) => response.#fields;
      headersOf = (response) => response.#headers;
      isResponse = (value): value is Response => value !== null && typeof value === 'object' && #fields in value;
    }

    constructor(body: unknown = null, init?: ResponseInit | null) {
      if (init !== undefined && init !== null && typeof init !== 'object')
        throw new TypeError('Response init must be an object');
      const options: ResponseInit = init ?? {};
      const status = options.status === undefined ? 200 : toUnsignedShort(options.status);
      if (status < 200 || status > 599) {
        throw new RangeError(
          `Failed to construct 'Response': The status provided ` +
            `(${String(options.status)}) is outside the range [200, 599].`,
        );
      }
      const statusText = options.statusText === undefined ? '' : String(options.statusText);
      if (!/^[\t\u0020-\u007e\u0080-\u00ff]*$/.test(statusText)) throw new TypeError('Invalid statusText');
      const headers = new Headers(options.headers);
      const extracted = extractBody(body);
      if ((extracted.bytes !== null || extracted.stream !== null) && NULL_BODY_STATUSES.includes(status)) {
        throw new TypeError(`Response with null body status (${status}) cannot have body`);
      }
      if (extracted.contentType !== null && !headers.has('content-type'))
        headers.set('content-type', extracted.contentType);
      super({ bytes: extracted.bytes, host: null, stream: extracted.stream, used: false });
      bindBodyHeaders(this, headers);
      this.#fields = { status, statusText, type: 'default', url: '', redirected: false };
      this.#headers = headers;
    }

    static error(): Response {
      const response = new Response(null, { status: 200 });
      Object.assign(response.#fields, { status: 0, type: 'error' });
      setHeadersGuard(response.#headers, 'immutable');
      return response;
    }

    static json(data: unknown, init?: ResponseInit | null): Response {
      const text = JSON.stringify(data);
      if (text === undefined) throw new TypeError('Response.json: data is not JSON serializable');
      const response = new Response(utf8Encode(text), init);
      if (!response.#headers.has('content-type')) response.#headers.set('content-type', 'application/json');
      return response;
    }

    static redirect(url: unknown, status: number = 302): Response {
      const record = parseUrl(String(url), undefined);
      if (record === null) throw new TypeError(`Failed to parse URL from ${String(url)}`);
      if (!REDIRECT_STATUSES.includes(status)) throw new RangeError(`Invalid status code ${String(status)}`);
      const response = new Response(null, { status, headers: { location: record.href } });
      setHeadersGuard(response.#headers, 'immutable');
      return response;
    }

    get type(): ResponseType {
      return this.#fields.type;
    }

    get url(): string {
      return this.#fields.url;
    }

    get redirected(): boolean {
      return this.#fields.redirected;
    }

    get status(): number {
      return this.#fields.status;
    }

    get ok(): boolean {
      return this.#fields.status >= 200 && this.#fields.status <= 299;
    }

    get statusText(): string {
      return this.#fields.statusText;
    }

    get headers(): Headers {
      return this.#headers;
    }

    clone(): Response {
      const state = bodyStateOf(this);
      if (isUnusable(state)) throw new TypeError('Cannot clone a Response whose body has already been read');
      const copy = new Response(null, { headers: this.#headers });
      Object.assign(bodyStateOf(copy), cloneBody(state));
      copy.#fields = { ...this.#fields };
      if (this.#fields.type !== 'default') setHeadersGuard(copy.#headers, 'immutable');
      return copy;
    }

    get [Symbol.toStringTag](): string {
      return 'Response';
    }
  }

  // esbuild renames a class that shadows a global the bundle names elsewhere: the standard's name.
  Object.defineProperty(Response, 'name', { value: 'Response' });

  /**
   * A Response for a fetch() result: any status the host saw, immutable headers, url/redirected
   * set; its body the bytes that came with it, or, when the host has more (`more`), a body read on
   * from the host as it is asked for.
   */
  function responseFromBridge(value: BridgeResponse, more: HostBodySource | null): Response {
    const response = new Response(null, { status: 200 });
    const headers = headersOf(response);
    for (const [name, headerValue] of value.headers) {
      try {
        headers.append(name, headerValue);
      } catch {
        // a header the Fetch standard cannot represent is dropped rather than failing the fetch
      }
    }
    setHeadersGuard(headers, 'immutable');
    const status = value.status;
    const state = bodyStateOf(response);
    if (NULL_BODY_STATUSES.includes(status)) more?.cancel();
    else if (more !== null) state.host = more;
    else state.bytes = value.body;
    Object.assign(fieldsOf(response), {
      status,
      statusText: value.statusText,
      type: 'basic',
      url: value.url,
      redirected: value.redirected,
    });
    return response;
  }

  /**
   * A guest's Response as it leaves the isolate: the SandboxResponse (its body bytes, empty when the
   * body goes on as a stream) and the body's state when it is a stream or still at the host. Null
   * when `value` is not one of ours or is unusable. Throws a TypeError when its headers are over
   * the crossing cap.
   */
  function serializeResponse(value: unknown): { response: SandboxResponse; streamed: BodyState | null } | null {
    if (!isResponse(value)) return null;
    const fields = fieldsOf(value);
    const state = bodyStateOf(value);
    if (fields.type === 'error' || isUnusable(state)) return null;
    const response: SandboxResponse = {
      status: fields.status,
      statusText: fields.statusText.slice(0, MAX_STATUS_TEXT_LENGTH),
      headers: crossingHeaderPairs(headersOf(value), 'the response'),
      body: state.bytes !== null && state.stream === null ? state.bytes.slice() : new Uint8Array(0),
    };
    if (isNullBody(state) || (state.bytes !== null && state.stream === null)) return { response, streamed: null };
    // Sent on from here: the Response is used up, as a body read would leave it.
    const streamed: BodyState = { ...state };
    Object.assign(state, emptyBody(), { used: true });
    return { response, streamed };
  }

  return { Response, responseFromBridge, serializeResponse, isResponse: (value: unknown) => isResponse(value) };
}

export type ResponseClass = ReturnType<typeof createResponseClass>['Response'];

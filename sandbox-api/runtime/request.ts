// The isolate's Request class (Fetch standard, as a server runtime has it). URLs are parsed by the
// host's parser passed in; relative URLs have no base here and throw. A body may be a stream (with
// `duplex: 'half'`, as the standard requires); `signal` follows the signal it was made with.
import {
  BodyCarrier,
  bindBodyHeaders,
  bodyStateOf,
  cloneBody,
  emptyBody,
  extractBody,
  isNullBody,
  isUnusable,
  takeBody,
  type BodyState,
} from './body.ts';
import { Headers, type HeadersInit } from './headers.ts';
import { signalOf, signalSources } from './signals.ts';
import type { ParseUrl } from './url.ts';

export type RequestRedirect = 'follow' | 'manual' | 'error';

export interface RequestInit {
  method?: string;
  headers?: HeadersInit;
  body?: unknown;
  redirect?: RequestRedirect;
  duplex?: 'half';
  signal?: AbortSignal | null;
  [option: string]: unknown;
}

const NORMALIZED_METHODS = ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT'];
const FORBIDDEN_METHODS = ['CONNECT', 'TRACE', 'TRACK'];
const REDIRECT_MODES: RequestRedirect[] = ['follow', 'manual', 'error'];

function normalizeMethod(value: unknown): string {
  const method = String(value);
  if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(method)) throw new TypeError(`'${method}' is not a valid HTTP method.`);
  const upper = method.toUpperCase();
  if (FORBIDDEN_METHODS.includes(upper)) throw new TypeError(`'${method}' HTTP method is unsupported.`);
  return NORMALIZED_METHODS.includes(upper) ? upper : method;
}

let signalsOf: (request: object) => readonly object[] = () => [];

/** The signals a runtime Request follows (fetch aborts with them). */
export function requestSignals(request: object): readonly object[] {
  return signalsOf(request);
}

export function createRequestClass(parseUrl: ParseUrl) {
  class Request extends BodyCarrier {
    #method: string;
    #url: string;
    #headers: Headers;
    #redirect: RequestRedirect;
    /** The signals this request follows; its own `signal` is made from them when first read. */
    #signals: readonly object[];
    #signal: object | null = null;

    static {
      signalsOf = (request) => (request as Request).#signals;
    }

    constructor(input: unknown, init?: RequestInit | null) {
      if (init !== undefined && init !== null && typeof init !== 'object')
        throw new TypeError('Request init must be an object');
      const options: RequestInit = init ?? {};
      const source = input !== null && typeof input === 'object' && #method in input ? (input as Request) : null;
      let url: string;
      if (source !== null) url = source.#url;
      else {
        const record = parseUrl(String(input), undefined);
        if (record === null) throw new TypeError(`Failed to parse URL from ${String(input)}`);
        if (record.username !== '' || record.password !== '') {
          throw new TypeError(`Request cannot be constructed from a URL that includes credentials: ${String(input)}`);
        }
        url = record.href;
      }
      const method =
        options.method !== undefined ? normalizeMethod(options.method) : source !== null ? source.#method : 'GET';
      const redirect =
        options.redirect !== undefined ? options.redirect : source !== null ? source.#redirect : 'follow';
      if (!REDIRECT_MODES.includes(redirect)) throw new TypeError(`'${String(redirect)}' is not a valid redirect mode`);
      const headers = new Headers(
        options.headers !== undefined ? options.headers : source !== null ? source.#headers : undefined,
      );
      const signals = signalSources(options, source !== null ? source.#signals : []);
      let body: BodyState = emptyBody();
      if (options.body !== undefined && options.body !== null) {
        if (method === 'GET' || method === 'HEAD')
          throw new TypeError('Request with GET/HEAD method cannot have body.');
        const extracted = extractBody(options.body);
        if (extracted.stream !== null && options.duplex !== 'half') {
          throw new TypeError("RequestInit: duplex option is required when sending a body stream ({ duplex: 'half' })");
        }
        body = { bytes: extracted.bytes, host: null, stream: extracted.stream, used: false };
        if (extracted.contentType !== null && !headers.has('content-type'))
          headers.set('content-type', extracted.contentType);
      } else if (source !== null && options.body === undefined) {
        const state = bodyStateOf(source);
        if (!isNullBody(state)) {
          if (isUnusable(state))
            throw new TypeError('Cannot construct a Request with a Request whose body has already been read');
          if (method === 'GET' || method === 'HEAD')
            throw new TypeError('Request with GET/HEAD method cannot have body.');
          body = takeBody(state); // the new request takes the body over, as in the spec
        }
      }
      super(body);
      bindBodyHeaders(this, headers);
      this.#method = method;
      this.#url = url;
      this.#headers = headers;
      this.#redirect = redirect;
      this.#signals = signals;
    }

    /** The request's AbortSignal: aborted when the signal it was made with aborts. */
    get signal(): AbortSignal {
      this.#signal ??= signalOf(this.#signals);
      return this.#signal as AbortSignal;
    }

    get method(): string {
      return this.#method;
    }

    get url(): string {
      return this.#url;
    }

    get headers(): Headers {
      return this.#headers;
    }

    get redirect(): RequestRedirect {
      return this.#redirect;
    }

    get duplex(): 'half' {
      return 'half';
    }

    clone(): Request {
      const state = bodyStateOf(this);
      if (isUnusable(state)) throw new TypeError('Cannot clone a Request whose body has already been read');
      const copy = new Request(this.#url, { method: this.#method, headers: this.#headers, redirect: this.#redirect });
      copy.#signals = this.#signals;
      Object.assign(bodyStateOf(copy), cloneBody(state));
      return copy;
    }

    get [Symbol.toStringTag](): string {
      return 'Request';
    }
  }
  // esbuild renames a class that shadows a global the bundle names elsewhere: the standard's name.
  Object.defineProperty(Request, 'name', { value: 'Request' });
  return Request;
}

export type RequestClass = ReturnType<typeof createRequestClass>;

// The console's only way to the host: fetch() to the documented HTTP API on the console's own
// origin, with the session cookie and the session's CSRF token. Turns every failure into an
// ApiError whose message a person can act on; never retries a state-changing request by itself.

import type { ErrorBody, ErrorDetail } from './types.ts';

export const CSRF_HEADER = 'X-CSRF-Token';

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: ErrorDetail[];
  readonly requestId: string | null;

  constructor(
    status: number,
    code: string,
    message: string,
    details: ErrorDetail[] = [],
    requestId: string | null = null,
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.details = details;
    this.requestId = requestId;
  }
}

let csrfToken: string | null = null;
let onSessionEnded: ((message: string) => void) | null = null;

export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

/** Called once when any request answers 401: the session ended (expired, signed out elsewhere). */
export function onUnauthorized(listener: (message: string) => void): void {
  onSessionEnded = listener;
}

function isErrorBody(value: unknown): value is ErrorBody {
  const error = (value as { error?: unknown } | null)?.error;
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as { code?: unknown }).code === 'string' &&
    typeof (error as { message?: unknown }).message === 'string'
  );
}

export interface RequestOptions {
  body?: unknown;
  signal?: AbortSignal;
  /** Do not treat a 401 as "the session ended" (the sign-in form itself). */
  quiet401?: boolean;
}

export function requestHeaders(extra: Record<string, string> = {}): Headers {
  const headers = new Headers({ accept: 'application/json', ...extra });
  if (csrfToken !== null) headers.set(CSRF_HEADER, csrfToken);
  return headers;
}

export async function request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
  const headers = requestHeaders();
  if (options.body !== undefined) headers.set('content-type', 'application/json');
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      credentials: 'same-origin',
      cache: 'no-store',
      ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    throw new ApiError(
      0,
      'ERR_NETWORK',
      'The host did not answer. Is it still running? Reload the page once it is back.',
    );
  }
  const requestId = response.headers.get('x-request-id');
  const text = response.status === 204 ? '' : await response.text();
  let parsed: unknown;
  if (text !== '') {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
  }
  if (!response.ok) {
    const guestMessage = (parsed as { error?: unknown } | undefined)?.error;
    const error = isErrorBody(parsed)
      ? new ApiError(
          response.status,
          parsed.error.code,
          parsed.error.message,
          Array.isArray(parsed.error.details) ? parsed.error.details : [],
          requestId,
        )
      : typeof guestMessage === 'string'
        ? // An integration's own ExposableError (`{ "error": "…" }`), passed on by the host.
          new ApiError(
            response.status,
            `HTTP_${response.status}`,
            `The integration answered ${response.status}: ${guestMessage}`,
            [],
            requestId,
          )
        : new ApiError(
            response.status,
            `HTTP_${response.status}`,
            `The host answered ${response.status} ${response.statusText || ''}`.trim(),
            [],
            requestId,
          );
    if (response.status === 401 && !options.quiet401) onSessionEnded?.(error.message);
    throw error;
  }
  if (text !== '' && parsed === undefined)
    throw new ApiError(
      response.status,
      'ERR_NOT_JSON',
      `The host answered ${response.status} with a body that is not JSON`,
      [],
      requestId,
    );
  return parsed as T;
}

export const api = {
  get: <T>(path: string, signal?: AbortSignal) => request<T>('GET', path, signal ? { signal } : {}),
  post: <T>(path: string, body?: unknown) => request<T>('POST', path, body === undefined ? {} : { body }),
  patch: <T>(path: string, body: unknown) => request<T>('PATCH', path, { body }),
  put: <T>(path: string, body: unknown) => request<T>('PUT', path, { body }),
  delete: (path: string) => request<void>('DELETE', path),
};

/** Path segments from untrusted values (ids, names) always go through this. */
export function segment(value: string): string {
  return encodeURIComponent(value);
}

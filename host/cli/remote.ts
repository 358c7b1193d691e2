// Calls a running host's admin API for the publishing commands: the address and token they were
// given, each failure turned into one line that says what to do (nothing listening, a refused
// token, the host's own refusal quoted). Never prints a token.

import { HostError, type ErrorDetail } from '../common/errors.ts';

export const DEFAULT_HOST_URL = 'http://127.0.0.1:8787';

export interface Remote {
  url: string;
  token: string;
  /** How the token is asked for in messages: `--token` (publishing) or `--admin-token` (publishers). */
  tokenFlag: string;
  tokenEnv: string;
}

export function remoteOf(given: { host?: string; token?: string }, tokenFlag: string, tokenEnv: string): Remote {
  const url = (given.host || DEFAULT_HOST_URL).replace(/\/+$/, '');
  try {
    new URL(url);
  } catch {
    throw new HostError(
      'ERR_OPTIONS_INVALID',
      `--host expects the host's address, e.g. ${DEFAULT_HOST_URL}; got "${url}"`,
    );
  }
  if (!given.token)
    throw new HostError(
      'ERR_UNAUTHORIZED',
      `no token for ${url}: pass ${tokenFlag} or set ${tokenEnv} ` +
        '(a publisher token from the operator, or the admin token)',
    );
  return { url, token: given.token, tokenFlag, tokenEnv };
}

export interface RemoteAnswer {
  status: number;
  /** The answer's JSON (its shape is the route's, docs/http-api.md). */
  body: unknown;
}

/** One request; a 2xx answer's JSON, else HostError with the host's message and the fix. */
export async function callHost(
  remote: Remote,
  method: string,
  path: string,
  body?: { type: string; bytes: Uint8Array<ArrayBuffer> },
): Promise<RemoteAnswer> {
  let response: Response;
  try {
    response = await fetch(`${remote.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${remote.token}`,
        ...(body ? { 'content-type': body.type } : {}),
      },
      ...(body ? { body: body.bytes } : {}),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const code = cause?.code ?? cause?.message ?? (error as Error).message;
    throw new HostError(
      'ERR_NOT_READY',
      `no host answers at ${remote.url} (${code}): pass --host with the address the host printed ("listening on")`,
    );
  }
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (response.ok) return { status: response.status, body: parsed };
  const error = (parsed as { error?: { code?: string; message?: string; details?: ErrorDetail[] } } | undefined)?.error;
  const message = error?.message ?? `HTTP ${response.status}`;
  if (response.status === 401 || (response.status === 403 && error?.code === 'ERR_FORBIDDEN'))
    throw new HostError(
      'ERR_UNAUTHORIZED',
      `the host at ${remote.url} refused the token (${message}): pass ${remote.tokenFlag} or set ${remote.tokenEnv}`,
    );
  throw new HostError('ERR_BAD_REQUEST', message, error?.details);
}

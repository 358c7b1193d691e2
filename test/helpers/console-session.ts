// Console sessions over plain HTTP for tests: sign in with the admin token, then call the console
// listener the way the console page does (cookie, CSRF header, same-origin fetch metadata).

import { ADMIN_TOKEN, type TestHost } from './host.ts';

export interface ConsoleClient {
  cookie: string;
  csrfToken: string;
  setCookie: string;
  /** A request as the console page makes it: same origin, cookie, CSRF token. */
  call(path: string, init?: RequestInit): Promise<Response>;
}

export function consoleUrlOf(host: TestHost): string {
  if (!host.consoleUrl) throw new Error('the test host was started without consolePort');
  return host.consoleUrl;
}

export async function signInOverHttp(host: TestHost, token = ADMIN_TOKEN): Promise<ConsoleClient> {
  const base = consoleUrlOf(host);
  const response = await fetch(`${base}/console/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: base, 'sec-fetch-site': 'same-origin' },
    body: JSON.stringify({ token }),
  });
  if (response.status !== 201) throw new Error(`sign-in answered ${response.status}: ${await response.text()}`);
  const setCookie = response.headers.get('set-cookie') ?? '';
  const cookie = setCookie.split(';')[0];
  const { csrfToken } = (await response.json()) as { csrfToken: string };
  return {
    cookie,
    csrfToken,
    setCookie,
    call(path, init = {}) {
      const headers = new Headers(init.headers);
      if (!headers.has('cookie')) headers.set('cookie', cookie);
      if (!headers.has('x-csrf-token')) headers.set('x-csrf-token', csrfToken);
      if (!headers.has('sec-fetch-site')) headers.set('sec-fetch-site', 'same-origin');
      if (init.body !== undefined && !headers.has('content-type')) headers.set('content-type', 'application/json');
      return fetch(`${base}${path}`, { ...init, headers });
    },
  };
}

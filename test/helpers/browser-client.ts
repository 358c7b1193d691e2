// A browser's cookie jar around fetch, for OAuth flows that bind a state to the browser which
// started them: each client keeps the cookies its answers set (host-only, by host name as browsers
// do, whatever the port; `Path` honoured; `Max-Age=0` deletes) and sends back those a request's
// URL matches. Redirects are never followed: tests look at each hop.

interface StoredCookie {
  name: string;
  value: string;
  host: string;
  path: string;
}

export interface BrowserClient {
  fetch(url: string, init?: RequestInit): Promise<Response>;
  /** The cookies this client holds, for assertions. */
  cookies(): StoredCookie[];
}

/** RFC 6265 §5.1.4: the request path is the cookie path or below it. */
function pathMatches(requestPath: string, cookiePath: string): boolean {
  if (requestPath === cookiePath) return true;
  return requestPath.startsWith(cookiePath) && (cookiePath.endsWith('/') || requestPath[cookiePath.length] === '/');
}

function defaultPath(url: URL): string {
  const slash = url.pathname.lastIndexOf('/');
  return slash <= 0 ? '/' : url.pathname.slice(0, slash);
}

export function createBrowserClient(): BrowserClient {
  const jar: StoredCookie[] = [];
  const store = (url: URL, header: string): void => {
    const [pair, ...attributes] = header.split(';');
    const equals = pair.indexOf('=');
    if (equals <= 0) return;
    const cookie = {
      name: pair.slice(0, equals).trim(),
      value: pair.slice(equals + 1).trim(),
      host: url.hostname,
      path: defaultPath(url),
    };
    let remove = false;
    for (const attribute of attributes) {
      const [key, ...rest] = attribute.trim().split('=');
      const value = rest.join('=');
      if (key.toLowerCase() === 'path' && value.startsWith('/')) cookie.path = value;
      if (key.toLowerCase() === 'max-age' && Number(value) <= 0) remove = true;
    }
    const existing = jar.findIndex(
      (held) => held.name === cookie.name && held.host === cookie.host && held.path === cookie.path,
    );
    if (existing !== -1) jar.splice(existing, 1);
    if (!remove) jar.push(cookie);
  };
  return {
    async fetch(target, init = {}) {
      const url = new URL(target);
      const headers = new Headers(init.headers);
      const sent = jar.filter((cookie) => cookie.host === url.hostname && pathMatches(url.pathname, cookie.path));
      if (sent.length > 0) headers.set('cookie', sent.map((cookie) => `${cookie.name}=${cookie.value}`).join('; '));
      const response = await fetch(url, { ...init, headers, redirect: 'manual' });
      for (const header of response.headers.getSetCookie()) store(url, header);
      return response;
    },
    cookies: () => jar.map((cookie) => ({ ...cookie })),
  };
}

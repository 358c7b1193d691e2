// The cookie that binds a sealed OAuth state to the browser that started the flow: set with the
// redirect to the provider, sent back with the callback, cleared once the callback is judged. Its
// name (`ih-oauth.<nonce>`) is outside every installation's and integration's cookie namespace
// (browser-isolation.ts), so no integration can set, read or receive it. Pure.

const PREFIX = 'ih-oauth.';

export function bindingCookieName(nonce: string): string {
  return `${PREFIX}${nonce}`;
}

/**
 * Top-level GET callbacks carry a `SameSite=Lax` cookie; a provider's form_post is a cross-site
 * POST, which carries only a `SameSite=None` one, and browsers accept that only with `Secure`, so
 * on https hosts the cookie is `None; Secure` and form_post callbacks keep their binding.
 */
function sameSite(secure: boolean): string {
  return secure ? 'SameSite=None; Secure' : 'SameSite=Lax';
}

/** `path` is the prefix shared by the integration's endpoints (`/v1/integrations/<name>/`). */
export function setBindingCookie(
  nonce: string,
  binding: string,
  path: string,
  secure: boolean,
  maxAgeSeconds: number,
): string {
  const attributes = `Path=${path}; Max-Age=${maxAgeSeconds}; HttpOnly; ${sameSite(secure)}`;
  return `${bindingCookieName(nonce)}=${binding}; ${attributes}`;
}

export function clearBindingCookie(nonce: string, path: string, secure: boolean): string {
  return `${bindingCookieName(nonce)}=; Path=${path}; Max-Age=0; HttpOnly; ${sameSite(secure)}`;
}

/** The value of cookie `name` in a request's `Cookie` header, if it is there. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const pair of header.split(';')) {
    const trimmed = pair.trim();
    const equals = trimmed.indexOf('=');
    if (equals > 0 && trimmed.slice(0, equals) === name) return trimmed.slice(equals + 1);
  }
  return undefined;
}

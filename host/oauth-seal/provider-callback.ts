// Recognising an OAuth provider's callback among the requests to a sealed integration's endpoints,
// and giving the integration back its own state in it. A callback is what RFC 6749 §4.1.2 says a
// provider sends: `code` (with `state`), or `error` with `state`, in the query, or, for providers
// answering with `response_mode=form_post`, in an urlencoded POST body. Pure.

import { paramValues, withParam } from './raw-params.ts';

export interface ProviderCallback {
  /** Where the provider put its parameters. */
  where: 'query' | 'form';
  /** Every `state` it carries (decoded): one is expected. */
  states: string[];
}

function isFormBody(method: string, contentType: string | undefined): boolean {
  if (method !== 'POST' || contentType === undefined) return false;
  return contentType.split(';')[0].trim().toLowerCase() === 'application/x-www-form-urlencoded';
}

/**
 * The callback a request carries, or undefined. `query` is its raw query (without `?`), `body`
 * its bytes (read only for an urlencoded POST).
 */
export function findCallback(
  method: string,
  query: string,
  contentType: string | undefined,
  body: Uint8Array | null,
): ProviderCallback | undefined {
  // `code` alone is a callback too: one that lost (or never had) its state must not reach the
  // integration. The same names in a form: GitBook's integrations post no other urlencoded `code`.
  const isCallback = (raw: string) =>
    paramValues(raw, 'code').length > 0 ||
    (paramValues(raw, 'error').length > 0 && paramValues(raw, 'state').length > 0);
  if (isCallback(query)) return { where: 'query', states: paramValues(query, 'state') };
  if (body === null || body.length === 0 || !isFormBody(method, contentType)) return undefined;
  const form = new TextDecoder().decode(body);
  return isCallback(form) ? { where: 'form', states: paramValues(form, 'state') } : undefined;
}

/** The form body with its `state` replaced by the integration's own (removed when it had none). */
export function restoreFormState(body: Uint8Array, original: string | null): Uint8Array {
  return new TextEncoder().encode(withParam(new TextDecoder().decode(body), 'state', original));
}

// The areas the WPT figures are reported by: the rows of issue 29 first, in its order, then the
// others. A file belongs to the first area with a matching path prefix; unknown files to "other".

export interface Area {
  name: string;
  prefixes: string[];
}

export const AREAS: readonly Area[] = [
  { name: 'Encoding', prefixes: ['encoding/'] },
  { name: 'Streams', prefixes: ['streams/'] },
  { name: 'structuredClone', prefixes: ['html/webappapis/structured-clone/'] },
  { name: 'Event/EventTarget', prefixes: ['dom/events/'] },
  { name: 'AbortController/AbortSignal', prefixes: ['dom/abort/'] },
  { name: 'WebCrypto ECDSA/RSA', prefixes: ['WebCryptoAPI/sign_verify/ecdsa', 'WebCryptoAPI/sign_verify/rsa'] },
  { name: 'WebCrypto HMAC', prefixes: ['WebCryptoAPI/sign_verify/hmac'] },
  { name: 'hr-time', prefixes: ['hr-time/'] },
  { name: 'Response', prefixes: ['fetch/api/response/'] },
  { name: 'Request', prefixes: ['fetch/api/request/'] },
  { name: 'Blob/File', prefixes: ['FileAPI/'] },
  // Before URL: these files sit in url/ too.
  { name: 'URLSearchParams', prefixes: ['url/urlsearchparams-', 'url/urlencoded-parser'] },
  { name: 'URL', prefixes: ['url/'] },
  { name: 'Headers', prefixes: ['fetch/api/headers/'] },
  { name: 'FormData', prefixes: ['xhr/formdata/'] },
  { name: 'Body (formData, MIME type)', prefixes: ['fetch/api/body/'] },
  { name: 'WebCrypto digest', prefixes: ['WebCryptoAPI/digest/'] },
  { name: 'WebCrypto random', prefixes: ['WebCryptoAPI/getRandomValues', 'WebCryptoAPI/randomUUID'] },
  { name: 'base64 (atob/btoa)', prefixes: ['html/webappapis/atob/'] },
  { name: 'timers', prefixes: ['html/webappapis/timers/'] },
  { name: 'console', prefixes: ['console/'] },
];

export const OTHER_AREA = 'other';

export function areaOf(file: string): string {
  return AREAS.find((area) => area.prefixes.some((prefix) => file.startsWith(prefix)))?.name ?? OTHER_AREA;
}

/** Area names in report order (known areas, then "other"). */
export function areaOrder(): string[] {
  return [...AREAS.map((area) => area.name), OTHER_AREA];
}

/**
 * Whether `file` is selected by `--only` values: an area's name (case-insensitive, whole) or a
 * substring of the path. No values select everything.
 */
export function selects(only: readonly string[], file: string): boolean {
  if (only.length === 0) return true;
  const area = areaOf(file).toLowerCase();
  return only.some((value) => value.toLowerCase() === area || file.includes(value));
}

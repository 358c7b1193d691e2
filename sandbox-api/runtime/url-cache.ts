// A small cache in front of the host's URL parser: every parse is a synchronous hop out of the
// isolate, and integrations parse the same URLs again and again (the request URL first of all).
// Records are frozen, so sharing one between URL objects can never leak a change.
import type { UrlRecord } from './contract.ts';
import type { ParseUrl } from './url.ts';

const MAX_ENTRIES = 512;

export interface UrlCache {
  parse: ParseUrl;
  /** Adds records the host already parsed (the envelope's request URL), so they cost no hop. */
  seed(entries: unknown): void;
}

export function createUrlCache(parseUrl: ParseUrl): UrlCache {
  const cache = new Map<string, UrlRecord | null>();
  const remember = (key: string, record: UrlRecord | null): void => {
    if (cache.size >= MAX_ENTRIES) cache.delete(cache.keys().next().value as string);
    cache.set(key, record === null ? null : Object.freeze({ ...record }));
  };
  return {
    parse(input, base) {
      const key = base === undefined ? input : `${input}\u0000${base}`;
      const hit = cache.get(key);
      if (hit !== undefined) return hit;
      const record = parseUrl(input, base);
      remember(key, record);
      return cache.get(key) ?? null;
    },
    seed(entries) {
      if (!Array.isArray(entries)) return;
      for (const entry of entries) {
        // The envelope comes from the host, but stay defensive: only well-formed pairs are kept.
        if (!Array.isArray(entry) || typeof entry[0] !== 'string' || typeof entry[1] !== 'object' || entry[1] === null)
          continue;
        const record = entry[1] as UrlRecord;
        if (typeof record.href !== 'string' || typeof record.protocol !== 'string') continue;
        remember(entry[0], record);
      }
    },
  };
}

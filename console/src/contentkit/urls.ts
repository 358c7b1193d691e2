// The one URL rule of the console for guest data: absolute http(s) URLs only. A `javascript:`,
// `data:`, `blob:`, `file:` or relative URL is refused, and the caller shows it as inert text.

export function safeHttpUrl(value: unknown): string | null {
  if (typeof value !== 'string' || value.length > 4096) return null;
  let url: URL;
  try {
    // No base: a relative URL throws instead of resolving against the console's origin.
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  return url.href;
}

/** A ContentKit `{ url }` object (link target, image source, webframe source) → its safe URL. */
export function urlOf(value: unknown): { url: string | null; raw: string } {
  const raw =
    typeof value === 'string'
      ? value
      : value !== null && typeof value === 'object' && Object.hasOwn(value, 'url')
        ? (value as { url: unknown }).url
        : undefined;
  const text = typeof raw === 'string' ? raw : '';
  return { url: safeHttpUrl(raw), raw: text };
}

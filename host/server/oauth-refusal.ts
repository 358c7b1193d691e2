// The host's own answer when it refuses an OAuth start or callback on a public endpoint: a short
// HTML page for a browser, the JSON error body of http-api.md for anything else. Never carries
// anything of the integration's; the extra headers (a cookie to clear) are the host's.

import type { HostError } from '../common/errors.ts';
import type { PublicAnswer } from './public-fetch.ts';

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function wantsHtml(accept: string | undefined): boolean {
  return accept !== undefined && /\btext\/html\b/i.test(accept);
}

export function oauthRefusal(
  error: HostError,
  accept: string | undefined,
  extraHeaders: [string, string][] = [],
): PublicAnswer {
  const common: [string, string][] = [
    ['cache-control', 'no-store'],
    ['x-content-type-options', 'nosniff'],
    ...extraHeaders,
  ];
  if (!wantsHtml(accept)) {
    return {
      status: error.status,
      headers: [['content-type', 'application/json; charset=utf-8'], ...common],
      body: new TextEncoder().encode(JSON.stringify(error.toBody())),
    };
  }
  const page =
    `<!doctype html><html><head><meta charset="utf-8"><title>Connection ` +
    `refused</title></head><body><h1>Connection ` +
    `refused</h1><p>${escapeHtml(error.message)}</p><p><code>${error.code}</code></p></body></html>`;
  return {
    status: error.status,
    headers: [
      ['content-type', 'text/html; charset=utf-8'],
      ['content-security-policy', "default-src 'none'"],
      ...common,
    ],
    body: new TextEncoder().encode(page),
  };
}

// What a dispatch hands a live isolate besides the event: the environment text unless its runtime
// holds it already, and the parsed record of a request URL it was not given yet. Pure on `Live`'s
// two caches; it never calls into the isolate.

import type { UrlRecord } from '../../../sandbox-api/runtime/contract.ts';
import * as primitives from '../../bridge/primitives.ts';
import type { Live } from './contract.ts';

/**
 * Request URLs whose parsed record this isolate already holds (its URL cache keeps 512; a seed it lost costs only a
 * hop).
 */
const MAX_SEEDED_URLS = 256;

/**
 * The environment text to send with a dispatch, or null when the runtime already holds it (the
 * worker keeps one string per environment, so an unchanged one is usually the same string).
 */
export function environmentToSend(live: Live, environmentJson: string): string | null {
  if (live.environmentJson === environmentJson) return null;
  live.environmentJson = environmentJson;
  return environmentJson;
}

/** Envelope.parsedUrls as JSON for a request URL this isolate has not been handed yet, else null. */
export function urlSeeds(live: Live, url: string | undefined): string | null {
  if (url === undefined || live.seededUrls.has(url)) return null;
  const record: UrlRecord | null = primitives.parseUrl(url, undefined);
  if (record === null) return null;
  if (live.seededUrls.size >= MAX_SEEDED_URLS) live.seededUrls.clear();
  live.seededUrls.add(url);
  return JSON.stringify([[url, record]]);
}

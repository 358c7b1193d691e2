// Checks of path and query parameters shared by the platform API routes: ids written through the
// API follow the platform data's id rule, and list limits stay bounded. Pure; throws ERR_VALIDATION.

import { HostError } from '../../common/errors.ts';

const ID = /^[A-Za-z0-9_-]{1,64}$/;

/** An id the caller chooses (e.g. a new page's), held to the same rule as the seed's ids. */
export function requireId(name: string, value: string): string {
  if (!ID.test(value)) {
    throw new HostError('ERR_VALIDATION', `${name} must be 1-64 letters, digits, "_" or "-"`, [
      { pointer: `/${name}`, message: 'must match ^[A-Za-z0-9_-]{1,64}$' },
    ]);
  }
  return value;
}

/** `?limit=` as an integer in [1, max], `fallback` when absent. */
export function readLimit(query: URLSearchParams, fallback: number, max: number): number {
  const raw = query.get('limit');
  if (raw === null) return fallback;
  const limit = Number(raw);
  if (!/^\d+$/.test(raw) || limit < 1 || limit > max) {
    throw new HostError('ERR_VALIDATION', `limit must be an integer from 1 to ${max}`, [
      { pointer: '/limit', message: `must be an integer from 1 to ${max}` },
    ]);
  }
  return limit;
}

/** `?cursor=` as handed out in a previous page's `next` (a positive integer string). */
export function readCursor(query: URLSearchParams): string | undefined {
  const raw = query.get('cursor');
  if (raw === null) return undefined;
  if (!/^[1-9]\d{0,15}$/.test(raw))
    throw new HostError('ERR_VALIDATION', 'cursor is not one this API handed out', [
      { pointer: '/cursor', message: 'is invalid' },
    ]);
  return raw;
}

/** After authorize(), a missing record means it vanished meanwhile: an ordinary 404. */
export function found<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new HostError('ERR_NOT_FOUND', `${what} not found`);
  return value;
}

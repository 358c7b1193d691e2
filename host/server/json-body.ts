// Reads and parses a JSON request body for the admin routes (no body-parser dependency). Owns the
// 415 / 413 / 400 rules of JSON bodies; it must never accept a body it has not fully checked.

import type { Context } from 'koa';
import { HostError } from '../common/errors.ts';
import { readBody } from './read-body.ts';
import { jsonTextTooDeep, tooDeepMessage } from '../common/json-depth.ts';

const MAX_JSON_BODY_BYTES = 1_048_576;

/** `application/json` or any `+json` media type, parameters ignored. */
function isJsonMediaType(contentType: string | undefined): boolean {
  const mediaType = (contentType ?? '').split(';')[0].trim().toLowerCase();
  return mediaType === 'application/json' || /^[a-z0-9.+-]+\/[a-z0-9.+-]+\+json$/.test(mediaType);
}

/**
 * How a route's errors describe its body: `expected` names the shape, `secret` keeps parser messages (which quote the
 * text) out.
 */
export interface JsonBodyOptions {
  expected?: string;
  secret?: boolean;
}

export async function readJsonBody(
  ctx: Context,
  limitBytes = MAX_JSON_BODY_BYTES,
  options: JsonBodyOptions = {},
): Promise<unknown> {
  const expected = options.expected === undefined ? '' : `; expected ${options.expected}`;
  if (!isJsonMediaType(ctx.get('content-type') || undefined)) {
    throw new HostError('ERR_UNSUPPORTED_MEDIA_TYPE', `request body must be application/json${expected}`);
  }
  const bytes = await readBody(ctx.req, limitBytes);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new HostError(
      'ERR_BAD_REQUEST',
      options.secret === true
        ? `request body is not valid UTF-8 JSON${expected}`
        : `request body is not valid JSON: it is not UTF-8${expected}`,
    );
  }
  // Before parsing: every later step (validation, the isolate copy) would recurse once per level.
  if (jsonTextTooDeep(text))
    throw new HostError('ERR_VALIDATION', `request body ${tooDeepMessage()}`, [
      { pointer: '', message: tooDeepMessage() },
    ]);
  try {
    return JSON.parse(text);
  } catch (error) {
    if (options.secret === true)
      throw new HostError(
        'ERR_BAD_REQUEST',
        `request body is not valid UTF-8 JSON${expected} (its text is not quoted here: it may hold a secret)`,
      );
    throw new HostError('ERR_BAD_REQUEST', `request body is not valid JSON: ${(error as Error).message}`);
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** For routes whose body must be a JSON object (arrays, strings and null are refused). */
export async function readJsonObject(
  ctx: Context,
  limitBytes = MAX_JSON_BODY_BYTES,
  options: JsonBodyOptions = {},
): Promise<Record<string, unknown>> {
  const body = await readJsonBody(ctx, limitBytes, options);
  if (!isPlainObject(body)) {
    const expected = options.expected === undefined ? '' : `: ${options.expected}`;
    throw new HostError('ERR_VALIDATION', `request body must be a JSON object${expected}`, [
      { pointer: '', message: 'must be a JSON object' },
    ]);
  }
  return body;
}
